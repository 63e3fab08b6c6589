# e2e tier on the real Slurm rig: the real orchestrator binary and PostgreSQL with a catalogue
# whose Slurm services point at the slurmrestd of the `slurm` fixture (tests/integration/slurm).
set(TEST_SOURCES
  ${TEST_DIR}/slurm_e2e_test.cpp
)
set(TEST_LIBS orch::connectors orch_rig_sites orch_rig_slurm)
set(TEST_LABELS slurm)
set(TEST_FIXTURES slurm)
