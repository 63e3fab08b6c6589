# Unit tier for orchestrator/src/auth: crypto, claim rules, contract §5 authorization, config,
# JWKS cache, and the authenticator/token keeper against an in-process identity provider.
set(TEST_SOURCES
  ${TEST_DIR}/fake_idp.cpp
  ${TEST_DIR}/base64_test.cpp
  ${TEST_DIR}/client_registration_test.cpp
  ${TEST_DIR}/iam_client_keeper_test.cpp
  ${TEST_DIR}/jws_test.cpp
  ${TEST_DIR}/token_checks_test.cpp
  ${TEST_DIR}/authorization_test.cpp
  ${TEST_DIR}/www_authenticate_test.cpp
  ${TEST_DIR}/auth_config_test.cpp
  ${TEST_DIR}/token_cipher_test.cpp
  ${TEST_DIR}/issuer_keys_test.cpp
  ${TEST_DIR}/issuer_cache_clock_test.cpp
  ${TEST_DIR}/oidc_authenticator_test.cpp
  ${TEST_DIR}/token_keeper_test.cpp
  ${TEST_DIR}/verification_metrics_test.cpp
)
set(TEST_LIBS orch::orchestrator deps::ssl orch_test_jwt orch_test_fakes)
