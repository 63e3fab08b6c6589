set(TEST_SOURCES
  ${TEST_DIR}/contract_test.cpp
)
