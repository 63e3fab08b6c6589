set(TEST_SOURCES
  ${TEST_DIR}/placement_http_test.cpp
  ${TEST_DIR}/fedreg_placement_test.cpp
)
set(TEST_LIBS orch::orchestrator deps::boost)
