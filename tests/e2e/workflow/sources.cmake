# Reliability e2e suite: the real orchestrator binary (killed, replicated, cut from its database),
# real PostgreSQL, real site-sim processes as the sites.
set(TEST_SOURCES
  ${TEST_DIR}/reliability_harness.cpp
  ${TEST_DIR}/crash_test.cpp
  ${TEST_DIR}/two_replica_test.cpp
  ${TEST_DIR}/database_outage_test.cpp
  ${TEST_DIR}/event_stream_test.cpp
  ${TEST_DIR}/callback_delivery_test.cpp
  ${TEST_DIR}/lease_e2e_test.cpp
)
set(TEST_LABELS reliability)
