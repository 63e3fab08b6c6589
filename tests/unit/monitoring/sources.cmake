set(TEST_SOURCES
  ${TEST_DIR}/monitoring_test.cpp
  ${TEST_DIR}/gpu_utilisation_test.cpp
)
