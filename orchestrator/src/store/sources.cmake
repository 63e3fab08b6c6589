set(SOURCES
  ${AREA_DIR}/pg_pool.cpp
  ${AREA_DIR}/migrations.cpp
  ${AREA_DIR}/database_supervisor.cpp
  ${AREA_DIR}/pg_rows.cpp
  ${AREA_DIR}/pg_deployment_store.cpp
  ${AREA_DIR}/pg_deployment_list.cpp
  ${AREA_DIR}/pg_workflow_store.cpp
  ${AREA_DIR}/pg_callback_outbox.cpp
  ${AREA_DIR}/pg_workflow_housekeeping.cpp
  ${AREA_DIR}/pg_admission.cpp
  ${AREA_DIR}/pg_node_stop.cpp
)
list(APPEND SOURCES ${AREA_DIR}/pg_side_stores.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_schedule_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_event_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_elastic_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_idle_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_lease_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/pg_iam_client_store.cpp)
list(APPEND SOURCES ${AREA_DIR}/list_cursor_cache.cpp)
