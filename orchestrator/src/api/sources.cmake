set(SOURCES
  ${AREA_DIR}/system_routes.cpp
  ${AREA_DIR}/types_routes.cpp
  ${AREA_DIR}/links.cpp
  ${AREA_DIR}/views.cpp
  ${AREA_DIR}/deployment_request.cpp
  ${AREA_DIR}/input_checks.cpp
  ${AREA_DIR}/api_context.cpp
  ${AREA_DIR}/scaling.cpp
  ${AREA_DIR}/update_capacity.cpp
  ${AREA_DIR}/deployment_update.cpp
  ${AREA_DIR}/elastic_sweep.cpp
  ${AREA_DIR}/elastic_count.cpp
  ${AREA_DIR}/deployment_routes.cpp
  ${AREA_DIR}/resource_routes.cpp
)
list(APPEND SOURCES ${AREA_DIR}/placement_routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/diagnostics_routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/schedule_request.cpp ${AREA_DIR}/schedule_views.cpp
  ${AREA_DIR}/schedule_routes.cpp ${AREA_DIR}/http_file_notification_source.cpp)
list(APPEND SOURCES ${AREA_DIR}/event_window.cpp ${AREA_DIR}/event_stream.cpp ${AREA_DIR}/event_routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/quota_routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/lease_request.cpp)
