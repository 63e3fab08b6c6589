# Integration tier for auth: real OpenID providers (npm oidc-provider shaped like INDIGO IAM, see
# scripts/oidc) on loopback, started once per ctest run by the `oidc` fixture below.
set(TEST_SOURCES
  ${TEST_DIR}/authenticator_it_test.cpp
  ${TEST_DIR}/rotation_it_test.cpp
  ${TEST_DIR}/token_keeper_it_test.cpp
  ${TEST_DIR}/secrets_in_logs_it_test.cpp
  ${TEST_DIR}/client_registration_it_test.cpp
)
set(TEST_LIBS orch::orchestrator deps::ssl orch_rig_oidc orch_test_jwt)
set(TEST_FIXTURES oidc)

# Fixture `oidc`: three issuers at once, each on its own free 127.0.0.1 port, stopped by PID.
foreach(issuer IN ITEMS alpha:full beta:minimal gamma:wlcg)
  string(REPLACE ":" ";" parts ${issuer})
  list(GET parts 0 name)
  list(GET parts 1 profile)
  add_test(NAME oidc.start.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/oidc/start ${PROJECT_BINARY_DIR}/test-oidc/${name} ${name} ${profile})
  add_test(NAME oidc.stop.${name} COMMAND ${PROJECT_SOURCE_DIR}/scripts/oidc/stop ${PROJECT_BINARY_DIR}/test-oidc/${name})
  set_tests_properties(oidc.start.${name} PROPERTIES FIXTURES_SETUP oidc LABELS integration TIMEOUT 300)
  set_tests_properties(oidc.stop.${name} PROPERTIES FIXTURES_CLEANUP oidc LABELS integration)
endforeach()
