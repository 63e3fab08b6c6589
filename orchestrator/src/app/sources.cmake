set(SOURCES
  ${AREA_DIR}/app_config.cpp
  ${AREA_DIR}/config_credentials.cpp
)
list(APPEND SOURCES ${AREA_DIR}/workflow_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/routes.cpp)
list(APPEND SOURCES ${AREA_DIR}/config_keys.cpp)
list(APPEND SOURCES ${AREA_DIR}/contextualisation_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/im_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/openstack_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/elastic_config.cpp ${AREA_DIR}/sla_group_policies.cpp)
# What main wires, one concern per function (main reads as the list of them).
list(APPEND SOURCES ${AREA_DIR}/wiring_auth.cpp ${AREA_DIR}/wiring_connectors.cpp ${AREA_DIR}/wiring_templates.cpp)
list(APPEND SOURCES ${AREA_DIR}/idle_config.cpp ${AREA_DIR}/wiring_idle.cpp)
list(APPEND SOURCES ${AREA_DIR}/lease_config.cpp)
list(APPEND SOURCES ${AREA_DIR}/iam_client_config.cpp ${AREA_DIR}/wiring_iam_clients.cpp)
