# Unit tests of the OpenStack connector against a scripted http::Client (no sockets).
set(TEST_SOURCES
  ${TEST_DIR}/fake_openstack.cpp
  ${TEST_DIR}/keystone_auth_test.cpp
  ${TEST_DIR}/openstack_server_test.cpp
  ${TEST_DIR}/openstack_connector_test.cpp
  ${TEST_DIR}/site_version_test.cpp
)
set(TEST_LIBS orch::connectors)
