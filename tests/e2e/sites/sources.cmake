set(TEST_SOURCES
  ${TEST_DIR}/site_rig.cpp
  ${TEST_DIR}/sites_e2e_test.cpp
)
