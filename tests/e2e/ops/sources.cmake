set(TEST_SOURCES
  ${TEST_DIR}/metrics_e2e_test.cpp
)
