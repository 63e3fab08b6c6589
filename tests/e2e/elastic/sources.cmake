# e2e tier for elastic clusters: the real orchestrator binary and PostgreSQL, a site-sim whose IM
# simulator holds the cluster's VMs, and a real Prometheus scraping a queue gauge the test sets.
set(TEST_SOURCES
  ${TEST_DIR}/elastic_e2e_test.cpp
)
set(TEST_LIBS orch_rig_sites)
