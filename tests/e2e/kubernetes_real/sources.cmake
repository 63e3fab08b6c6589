# The real orchestrator binary (with the `pg` fixture's PostgreSQL) deploying onto the real
# kube-apiserver tier of tests/integration/kubernetes_real (its `kube` fixture and rig; the test
# plays the kubelet). Skipped (77) like that tier when the control plane is not built.
set(TEST_SOURCES
  ${TEST_DIR}/orchestrator_real_test.cpp
)
set(TEST_LIBS orch_rig_sites orch_rig_kube)
set(TEST_LABELS kubernetes)
set(TEST_FIXTURES kube)
set(TEST_RESOURCE_LOCK kube_gpus)  # the rig's GPU node is shared with the integration tier
set(TEST_SKIP_RETURN_CODE 77)
