set(TEST_SOURCES
  ${TEST_DIR}/router_test.cpp
  ${TEST_DIR}/attempts_route_test.cpp
  ${TEST_DIR}/diagnostics_route_test.cpp
  ${TEST_DIR}/response_test.cpp
  ${TEST_DIR}/enum_names_test.cpp
  ${TEST_DIR}/views_test.cpp
  ${TEST_DIR}/app_config_test.cpp
)
list(APPEND TEST_SOURCES ${TEST_DIR}/file_expression_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/schedule_auth_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/caching_template_service_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/deleted_visibility_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/in_memory_store_contract_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/elastic_sweep_test.cpp ${TEST_DIR}/sla_group_policies_test.cpp)
set(TEST_LIBS orch::orchestrator orch_test_fakes)
list(APPEND TEST_SOURCES ${TEST_DIR}/iso_time_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/lease_config_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/iam_client_registry_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/schedule_lease_test.cpp)
