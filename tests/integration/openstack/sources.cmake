# Integration tests of the OpenStack connector against a real Keystone + Placement + Glance + Nova
# (fake GPU hypervisor) + RabbitMQ + PostgreSQL rig (scripts/openstack/start), started once per
# ctest run by the `openstack` fixture and stopped by PID.
set(TEST_SOURCES
  ${TEST_DIR}/openstack_rig.cpp
  ${TEST_DIR}/openstack_connector_test.cpp
)
set(TEST_LIBS orch::connectors)

set(ORCH_OPENSTACK_TEST_DIR ${PROJECT_BINARY_DIR}/test-openstack)
# A fresh rig per run: stop whatever an interrupted run left, then set up and start.
add_test(NAME openstack.start COMMAND sh -c "'${PROJECT_SOURCE_DIR}/scripts/openstack/stop' '${ORCH_OPENSTACK_TEST_DIR}' && rm -rf '${ORCH_OPENSTACK_TEST_DIR}' && exec '${PROJECT_SOURCE_DIR}/scripts/openstack/start' '${ORCH_OPENSTACK_TEST_DIR}'")
add_test(NAME openstack.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/openstack/stop ${ORCH_OPENSTACK_TEST_DIR})
set_tests_properties(openstack.start PROPERTIES FIXTURES_SETUP openstack LABELS "integration;openstack" TIMEOUT 900)
set_tests_properties(openstack.stop PROPERTIES FIXTURES_CLEANUP openstack LABELS "integration;openstack" TIMEOUT 120)

# The discovered tests require the fixture, carry the `openstack` label, and take turns on the
# rig's two fake GPUs. tests/CMakeLists.txt has no hook for this (see tests/integration/slurm), so
# a CTest include file run after Catch's discovery file sets it.
set(_openstack_fixture_file ${CMAKE_CURRENT_BINARY_DIR}/integration_openstack_fixtures.cmake)
file(WRITE ${_openstack_fixture_file}
  "if(integration_openstack_TESTS)\n"
  "  set_tests_properties(\${integration_openstack_TESTS} PROPERTIES FIXTURES_REQUIRED \"pg;openstack\"\n"
  "    LABELS \"integration;openstack\" RESOURCE_LOCK openstack_gpus)\n"
  "endif()\n")
cmake_language(EVAL CODE "
  cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL
    set_property DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] APPEND PROPERTY TEST_INCLUDE_FILES [[${_openstack_fixture_file}]])")
