# The CI jobs documented in docs/tosca-check.md, run as written against the built tosca-check.
set(TEST_SOURCES
  ${TEST_DIR}/ci_jobs_e2e_test.cpp
)
set(TEST_LIBS deps::yaml)
