set(TEST_SOURCES
  ${TEST_DIR}/monitoring_test.cpp
)
