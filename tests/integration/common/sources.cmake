set(TEST_SOURCES
  ${TEST_DIR}/https_client_test.cpp
  ${TEST_DIR}/trace_propagation_test.cpp
)
