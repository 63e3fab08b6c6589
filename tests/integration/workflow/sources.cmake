set(TEST_SOURCES
  ${TEST_DIR}/workflow_harness.cpp
  ${TEST_DIR}/workflow_test.cpp
  ${TEST_DIR}/lock_order_test.cpp
)
set(TEST_LIBS orch_test_fakes orch::orchestrator)
