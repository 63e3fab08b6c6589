set(TEST_SOURCES
  ${TEST_DIR}/api_harness.cpp
  ${TEST_DIR}/contract_test.cpp
  ${TEST_DIR}/schedules_test.cpp
)
