# e2e tier on the real Slurm rig: the real orchestrator binary and PostgreSQL with a catalogue
# whose Slurm services point at the slurmrestd of the `slurm` fixture (tests/integration/slurm).
set(TEST_SOURCES
  ${TEST_DIR}/../sites/site_rig.cpp
  ${TEST_DIR}/../../integration/slurm/slurm_rig.cpp
  ${TEST_DIR}/slurm_e2e_test.cpp
)
set(TEST_LIBS orch::connectors)
set(TEST_LABELS slurm)
set(TEST_FIXTURES slurm)
