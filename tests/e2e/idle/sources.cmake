# e2e tier for idle GPU reclamation (docs/lifecycle.md): the real orchestrator binary, real
# PostgreSQL, a site-sim Marathon site and a real Prometheus scraping DCGM-shaped series the test
# controls.
set(TEST_SOURCES
  ${TEST_DIR}/idle_e2e_test.cpp
)
set(TEST_LIBS deps::pqxx)
