set(TEST_SOURCES
  ${TEST_DIR}/metrics_e2e_test.cpp
  ${TEST_DIR}/openapi_e2e_test.cpp
  ${TEST_DIR}/packaging_e2e_test.cpp
)
set(TEST_LIBS orch::sim deps::yaml)
