set(SOURCES
  ${AREA_DIR}/marathon_app_builder.cpp
  ${AREA_DIR}/marathon_poll.cpp
  ${AREA_DIR}/marathon_connector.cpp
)
