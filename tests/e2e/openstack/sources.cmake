# e2e tier on the real OpenStack rig: the real orchestrator binary and PostgreSQL with a catalogue
# whose OpenStack services point at the Keystone of the `openstack` fixture
# (tests/integration/openstack), which is started once per ctest run and shared.
set(TEST_SOURCES
  ${TEST_DIR}/../sites/site_rig.cpp
  ${TEST_DIR}/../../integration/openstack/openstack_rig.cpp
  ${TEST_DIR}/openstack_e2e_test.cpp
)
set(TEST_LIBS orch::connectors)
set(TEST_LABELS openstack)
set(TEST_FIXTURES openstack)
set(TEST_RESOURCE_LOCK openstack_gpus)  # the rig's two fake GPUs are shared
