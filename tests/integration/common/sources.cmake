set(TEST_SOURCES
  ${TEST_DIR}/https_client_test.cpp
)
