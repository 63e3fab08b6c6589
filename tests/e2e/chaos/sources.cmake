# The chaos run of the reliability suite; shares the sites rig.
set(TEST_SOURCES
  ${TEST_DIR}/../sites/site_rig.cpp
  ${TEST_DIR}/chaos_test.cpp
)

set(TEST_LABELS reliability)
