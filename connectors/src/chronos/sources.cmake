set(SOURCES
  ${AREA_DIR}/chronos_jobs.cpp
  ${AREA_DIR}/chronos_connector.cpp
)
