set(TEST_SOURCES
  ${TEST_DIR}/sites_e2e_test.cpp
  ${TEST_DIR}/helm_e2e_test.cpp
  ${TEST_DIR}/update_capacity_e2e_test.cpp
  ${TEST_DIR}/scale_rollback_e2e_test.cpp
  ${TEST_DIR}/parity_e2e_test.cpp
  ${TEST_DIR}/kubernetes_crash_loop_e2e_test.cpp
  ${TEST_DIR}/kubernetes_actions_e2e_test.cpp
  ${TEST_DIR}/self_heal_e2e_test.cpp
)
set(TEST_LIBS orch_rig_sites)
