set(TEST_SOURCES
  ${TEST_DIR}/openapi_test.cpp
  ${TEST_DIR}/openapi_structure_test.cpp
  ${TEST_DIR}/configuration_doc_test.cpp
  ${TEST_DIR}/metered_test.cpp
)
set(TEST_LIBS orch::orchestrator orch_test_fakes)
