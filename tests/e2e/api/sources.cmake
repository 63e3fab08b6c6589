set(TEST_SOURCES
  ${TEST_DIR}/contract_test.cpp
)
list(APPEND TEST_SOURCES ${TEST_DIR}/schedules_test.cpp)
