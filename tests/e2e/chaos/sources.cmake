# The chaos run of the reliability suite; shares the sites rig.
set(TEST_SOURCES
  ${TEST_DIR}/chaos_test.cpp
)
set(TEST_LIBS orch_rig_sites)
set(TEST_LABELS reliability)
