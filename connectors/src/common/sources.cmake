set(SOURCES
  ${AREA_DIR}/rest_client.cpp
  ${AREA_DIR}/site_client_factory.cpp
  ${AREA_DIR}/naming.cpp
  ${AREA_DIR}/workload.cpp
  ${AREA_DIR}/registry.cpp
  ${AREA_DIR}/site_events.cpp
)
