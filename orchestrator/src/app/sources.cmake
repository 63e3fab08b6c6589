set(SOURCES
  ${AREA_DIR}/app_config.cpp
  ${AREA_DIR}/config_credentials.cpp
)
list(APPEND SOURCES ${AREA_DIR}/workflow_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/config_keys.cpp)
list(APPEND SOURCES ${AREA_DIR}/contextualisation_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/im_config.cpp)
