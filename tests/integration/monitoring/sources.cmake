set(TEST_SOURCES
  ${TEST_DIR}/prometheus_test.cpp
)
set(TEST_LIBS deps::boost)
