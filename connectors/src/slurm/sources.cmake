# Slurm (slurmrestd v0.0.38) connector.
set(SOURCES
  ${AREA_DIR}/slurm_connector.cpp
  ${AREA_DIR}/slurm_job.cpp
  ${AREA_DIR}/slurm_rest.cpp
  ${AREA_DIR}/slurm_states.cpp
)
