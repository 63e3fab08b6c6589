# e2e tier for placement: the real orchestrator binary, real PostgreSQL, a site-sim Marathon site
# (admission_race_e2e_test: two replicas of it on one database; cohort_e2e_test: a cohort's borrow
# and its return).
set(TEST_SOURCES
  ${TEST_DIR}/gpu_site_harness.cpp
  ${TEST_DIR}/quota_e2e_test.cpp
  ${TEST_DIR}/admission_race_e2e_test.cpp
  ${TEST_DIR}/cohort_e2e_test.cpp
)
