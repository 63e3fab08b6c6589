set(TEST_SOURCES
  ${TEST_DIR}/packaging_test.cpp
)
set(TEST_LIBS orch::orchestrator)
