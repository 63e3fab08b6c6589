set(SOURCES
  ${AREA_DIR}/request_metrics.cpp
  ${AREA_DIR}/ops_routes.cpp
)
list(APPEND SOURCES ${AREA_DIR}/store_metrics.cpp)
list(APPEND SOURCES ${AREA_DIR}/metered_connector.cpp ${AREA_DIR}/metered_placer.cpp)
list(APPEND SOURCES ${AREA_DIR}/openapi.cpp)
list(APPEND SOURCES ${AREA_DIR}/workflow_metrics.cpp ${AREA_DIR}/metered_authenticator.cpp)
list(APPEND SOURCES ${AREA_DIR}/idle_metrics.cpp)
list(APPEND SOURCES ${AREA_DIR}/callback_metrics.cpp)
list(APPEND SOURCES ${AREA_DIR}/admission_metrics.cpp)
list(APPEND SOURCES ${AREA_DIR}/lease_metrics.cpp)
list(APPEND SOURCES ${AREA_DIR}/site_watch_metrics.cpp)
