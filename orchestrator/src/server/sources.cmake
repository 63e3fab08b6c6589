set(SOURCES
  ${AREA_DIR}/request.cpp
  ${AREA_DIR}/response.cpp
  ${AREA_DIR}/router.cpp
  ${AREA_DIR}/request_checks.cpp
  ${AREA_DIR}/http_server.cpp
  ${AREA_DIR}/http_stream.cpp
)
