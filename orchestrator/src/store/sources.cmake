set(SOURCES
  ${AREA_DIR}/pg_pool.cpp
  ${AREA_DIR}/migrations.cpp
  ${AREA_DIR}/database_supervisor.cpp
)
