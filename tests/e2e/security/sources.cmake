# Hostile input against the real binaries (issue 16): YAML alias amplification through the API,
# tosca-check on endless or oversized input (memory measured on the processes themselves),
# backtracking patterns that must not stall the API, lists that must not cross issuers, and
# deployments that must not ask for unbounded work. The authed harness (tests/e2e/auth) with the
# `oidc` fixture's issuers.
set(TEST_SOURCES
  ${TEST_DIR}/alias_bomb_test.cpp
  ${TEST_DIR}/tosca_check_input_test.cpp
  ${TEST_DIR}/../auth/authed_orchestrator.cpp
  ${TEST_DIR}/stall_e2e_test.cpp
  ${TEST_DIR}/instance_cap_e2e_test.cpp
  ${TEST_DIR}/issuer_scope_e2e_test.cpp
)
set(TEST_LIBS orch::orchestrator deps::ssl orch_rig_oidc)
set(TEST_FIXTURES oidc)
set(TEST_LABELS security)
