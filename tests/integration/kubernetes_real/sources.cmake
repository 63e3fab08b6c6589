# The Kubernetes connector, the shipped templates and the orchestrator's own manifests
# (deploy/kubernetes) against a real kube-apiserver 1.20 with etcd, the scheduler and the
# controller manager (scripts/kube/start), started once per ctest run by the `kube` fixture and
# stopped by PID. The tests register a GPU node and play its kubelet.
# The binaries come from scripts/kube/build, which scripts/test runs first (cached per user
# outside the checkout). Without them the fixture and every test exit 77, which CTest reports as
# skipped, with a message saying how to build; with CI=true the fixture fails instead.
set(TEST_SOURCES
  ${TEST_DIR}/kube_checks.cpp
  ${TEST_DIR}/kubernetes_real_test.cpp
  ${TEST_DIR}/templates_real_test.cpp
  ${TEST_DIR}/deploy_manifests_test.cpp
)
set(TEST_LIBS orch_rig_kube deps::yaml)  # kube_rig.cpp and fake_kubelet.cpp (tests/CMakeLists.txt)
set(TEST_LABELS kubernetes)
set(TEST_FIXTURES kube)
set(TEST_RESOURCE_LOCK kube_gpus)  # the node's two GPUs are shared by the tests
set(TEST_SKIP_RETURN_CODE 77)

set(ORCH_KUBE_TEST_DIR ${PROJECT_BINARY_DIR}/test-kube)
# A fresh control plane per run: stop whatever an interrupted run left, then set up and start.
add_test(NAME kube.start COMMAND sh -c "'${PROJECT_SOURCE_DIR}/scripts/kube/stop' '${ORCH_KUBE_TEST_DIR}' && rm -rf '${ORCH_KUBE_TEST_DIR}' && exec '${PROJECT_SOURCE_DIR}/scripts/kube/start' '${ORCH_KUBE_TEST_DIR}'")
add_test(NAME kube.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/kube/stop ${ORCH_KUBE_TEST_DIR})
set_tests_properties(kube.start PROPERTIES FIXTURES_SETUP kube LABELS "integration;kubernetes" TIMEOUT 300 SKIP_RETURN_CODE 77)
set_tests_properties(kube.stop PROPERTIES FIXTURES_CLEANUP kube LABELS "integration;kubernetes" TIMEOUT 60)
