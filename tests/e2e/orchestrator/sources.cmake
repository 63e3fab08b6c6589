set(TEST_SOURCES
  ${TEST_DIR}/server_e2e_test.cpp
)
