set(TEST_SOURCES
  ${TEST_DIR}/api_harness.cpp
  ${TEST_DIR}/contract_test.cpp
  ${TEST_DIR}/dropin_test.cpp
  ${TEST_DIR}/import_egress_test.cpp
  ${TEST_DIR}/schedules_test.cpp
  ${TEST_DIR}/unknown_parameters_test.cpp
)
# dropin_test runs a Kubernetes site on site-sim for the update it needs.
set(TEST_LIBS orch_rig_sites)
