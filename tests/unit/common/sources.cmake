set(TEST_SOURCES
  ${TEST_DIR}/result_test.cpp
  ${TEST_DIR}/config_test.cpp
  ${TEST_DIR}/json_test.cpp
  ${TEST_DIR}/url_test.cpp
  ${TEST_DIR}/log_test.cpp
  ${TEST_DIR}/uuid_test.cpp
)
