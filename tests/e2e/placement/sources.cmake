# e2e tier for placement: the real orchestrator binary, real PostgreSQL, a site-sim Marathon site.
set(TEST_SOURCES
  ${TEST_DIR}/quota_e2e_test.cpp
)
