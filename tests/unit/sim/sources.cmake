set(TEST_SOURCES
  ${TEST_DIR}/json_schema_test.cpp
  ${TEST_DIR}/marathon_sim_test.cpp
  ${TEST_DIR}/chronos_sim_test.cpp
  ${TEST_DIR}/kubernetes_sim_test.cpp
  ${TEST_DIR}/site_sim_test.cpp
  ${TEST_DIR}/im_sim_test.cpp
)
