# The chaos runs of the reliability suite: many deployments under kills and faults (shares the
# sites rig), and the lifecycle policies under kills of two replicas and a database restart.
set(TEST_SOURCES
  ${TEST_DIR}/chaos_test.cpp
  ${TEST_DIR}/lifecycle_chaos_test.cpp
)
set(TEST_LIBS orch_rig_sites deps::pqxx)
set(TEST_LABELS reliability)
