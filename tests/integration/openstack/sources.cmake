# Integration tests of the OpenStack connector against a real Keystone + Placement + Glance + Nova
# (fake GPU hypervisor) + RabbitMQ + PostgreSQL rig (scripts/openstack/start), started once per
# ctest run by the `openstack` fixture and stopped by PID.
set(TEST_SOURCES
  ${TEST_DIR}/openstack_connector_test.cpp
  ${TEST_DIR}/openstack_contextualisation_test.cpp
)
set(TEST_LIBS orch::connectors orch_rig_openstack)
set(TEST_LABELS openstack)
set(TEST_FIXTURES openstack)
set(TEST_RESOURCE_LOCK openstack_gpus)  # the rig's two fake GPUs are shared

set(ORCH_OPENSTACK_TEST_DIR ${PROJECT_BINARY_DIR}/test-openstack)
# A fresh rig per run: stop whatever an interrupted run left, then set up and start.
add_test(NAME openstack.start COMMAND sh -c "'${PROJECT_SOURCE_DIR}/scripts/openstack/stop' '${ORCH_OPENSTACK_TEST_DIR}' && rm -rf '${ORCH_OPENSTACK_TEST_DIR}' && exec '${PROJECT_SOURCE_DIR}/scripts/openstack/start' '${ORCH_OPENSTACK_TEST_DIR}'")
add_test(NAME openstack.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/openstack/stop ${ORCH_OPENSTACK_TEST_DIR})
set_tests_properties(openstack.start PROPERTIES FIXTURES_SETUP openstack LABELS "integration;openstack" TIMEOUT 900)
set_tests_properties(openstack.stop PROPERTIES FIXTURES_CLEANUP openstack LABELS "integration;openstack" TIMEOUT 120)
