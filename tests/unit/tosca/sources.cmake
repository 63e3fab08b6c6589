set(TEST_SOURCES
  ${TEST_DIR}/yaml_loader_test.cpp
  ${TEST_DIR}/yaml_differential_test.cpp
  ${TEST_DIR}/yaml_alias_budget_test.cpp
  ${TEST_DIR}/scalar_unit_test.cpp
  ${TEST_DIR}/values_test.cpp
  ${TEST_DIR}/functions_test.cpp
  ${TEST_DIR}/engine_test.cpp
  ${TEST_DIR}/unknown_parameters_test.cpp
  ${TEST_DIR}/imports_test.cpp
  ${TEST_DIR}/spec_test.cpp
  ${TEST_DIR}/types_profile_test.cpp
  ${TEST_DIR}/node_operations_test.cpp
  ${TEST_DIR}/outputs_test.cpp
  ${TEST_DIR}/tosca_check_test.cpp
  ${TEST_DIR}/tosca_check_ci_test.cpp
  ${TEST_DIR}/import_paths_test.cpp
  ${TEST_DIR}/import_cache_bytes_test.cpp
  ${TEST_DIR}/corpus_test.cpp
  ${TEST_DIR}/sensitive_inputs_test.cpp
  ${TEST_DIR}/conformance/functions_test.cpp
  ${TEST_DIR}/conformance/versions_test.cpp
  ${TEST_DIR}/conformance/definitions_test.cpp
  ${TEST_DIR}/conformance/substitution_test.cpp
)
# White-box tests reach the engine's internal headers; tosca-check runs in-process.
set(TEST_LIBS orch::tosca_internal orch::tosca_check_command)
