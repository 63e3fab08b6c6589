# Integration tests of the Slurm connector against a real slurmctld + slurmd + slurmrestd + munge
# (scripts/slurm/start), started once per ctest run by the `slurm` fixture and stopped by PID.
set(TEST_SOURCES
  ${TEST_DIR}/slurm_connector_test.cpp
)
set(TEST_LIBS orch::connectors orch_rig_slurm)
set(TEST_LABELS slurm)
set(TEST_FIXTURES slurm)

set(ORCH_SLURM_TEST_DIR ${PROJECT_BINARY_DIR}/test-slurm)
add_test(NAME slurm.start COMMAND ${PROJECT_SOURCE_DIR}/scripts/slurm/start ${ORCH_SLURM_TEST_DIR})
add_test(NAME slurm.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/slurm/stop ${ORCH_SLURM_TEST_DIR})
set_tests_properties(slurm.start PROPERTIES FIXTURES_SETUP slurm LABELS "integration;slurm" TIMEOUT 120)
set_tests_properties(slurm.stop PROPERTIES FIXTURES_CLEANUP slurm LABELS "integration;slurm" TIMEOUT 60)
