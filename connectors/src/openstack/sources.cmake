# OpenStack (Keystone v3 + Nova) connector.
set(SOURCES
  ${AREA_DIR}/keystone_auth.cpp
  ${AREA_DIR}/openstack_api.cpp
  ${AREA_DIR}/openstack_connector.cpp
  ${AREA_DIR}/openstack_errors.cpp
  ${AREA_DIR}/openstack_server.cpp
  ${AREA_DIR}/openstack_states.cpp
)
