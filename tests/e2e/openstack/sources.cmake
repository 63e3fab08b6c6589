# e2e tier on the real OpenStack rig: the real orchestrator binary and PostgreSQL with a catalogue
# whose OpenStack services point at the Keystone of the `openstack` fixture
# (tests/integration/openstack), which is started once per ctest run and shared.
set(TEST_SOURCES
  ${TEST_DIR}/openstack_e2e_test.cpp
  ${TEST_DIR}/native_e2e_test.cpp  # native Ansible through the binary: roles/, artifacts/
)
set(TEST_LIBS orch::connectors orch_rig_sites orch_rig_openstack)
set(TEST_LABELS openstack)
set(TEST_FIXTURES openstack)
set(TEST_RESOURCE_LOCK openstack_gpus)  # the rig's two fake GPUs are shared
