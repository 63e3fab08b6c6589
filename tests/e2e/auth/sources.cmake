# e2e tier for auth: the real orchestrator binary with `auth.mode: oidc`, real PostgreSQL and the
# real test OpenID providers (scripts/oidc) of the `oidc` fixture (tests/integration/auth), plus
# private short-lived-token providers and a site-sim where a test needs them.
set(TEST_SOURCES
  ${TEST_DIR}/authed_orchestrator.cpp
  ${TEST_DIR}/visibility_e2e_test.cpp
  ${TEST_DIR}/rejection_e2e_test.cpp
  ${TEST_DIR}/expired_token_e2e_test.cpp
  ${TEST_DIR}/iam_clients_e2e_test.cpp
  ${TEST_DIR}/fedreg_e2e_test.cpp
)
set(TEST_LIBS orch::orchestrator deps::ssl orch_rig_oidc)
set(TEST_FIXTURES oidc)
