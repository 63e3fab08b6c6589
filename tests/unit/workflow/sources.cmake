# Workflow steps driven one at a time (Engine::RunOneDue) over the in-memory stores, a fake
# connector and a ManualClock: timeouts and retries are decided by the clock, not by sleeping.
set(TEST_SOURCES
  ${TEST_DIR}/deploy_steps_test.cpp
  ${TEST_DIR}/deploy_steps_events_test.cpp
  ${TEST_DIR}/deploy_steps_admission_test.cpp
  ${TEST_DIR}/deploy_steps_cycle_test.cpp
  ${TEST_DIR}/provider_tries_test.cpp
  ${TEST_DIR}/fair_share_test.cpp
  ${TEST_DIR}/admission_claims_test.cpp
  ${TEST_DIR}/admission_cycle_test.cpp
  ${TEST_DIR}/callback_deliverer_test.cpp
  ${TEST_DIR}/admission_queue_test.cpp
  ${TEST_DIR}/elastic_policy_test.cpp
  ${TEST_DIR}/self_heal_test.cpp
  ${TEST_DIR}/idle_reclaimer_test.cpp
  ${TEST_DIR}/lease_sweep_test.cpp
  ${TEST_DIR}/iam_client_steps_test.cpp
  ${TEST_DIR}/site_watcher_test.cpp
  ${TEST_DIR}/late_sweep_test.cpp
)
set(TEST_LIBS orch::orchestrator orch_test_fakes)
