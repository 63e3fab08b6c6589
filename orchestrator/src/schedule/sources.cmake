set(SOURCES
  ${AREA_DIR}/file_expression.cpp
  ${AREA_DIR}/schedule_event_service.cpp
)
