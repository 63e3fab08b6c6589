# Authentication and authorization: our own JWT verification (OpenSSL 3), JWKS/introspection/userinfo
# per trusted issuer, contract §5 rules, and refresh tokens kept encrypted for work done later.
set(SOURCES
  ${AREA_DIR}/auth_config.cpp
  ${AREA_DIR}/auth_setup.cpp
  ${AREA_DIR}/authenticator.cpp
  ${AREA_DIR}/authorization.cpp
  ${AREA_DIR}/base64.cpp
  ${AREA_DIR}/claims_mapping.cpp
  ${AREA_DIR}/client_registration.cpp
  ${AREA_DIR}/iam_client_keeper.cpp
  ${AREA_DIR}/issuer_client.cpp
  ${AREA_DIR}/issuer_directory.cpp
  ${AREA_DIR}/issuer_keys.cpp
  ${AREA_DIR}/jws.cpp
  ${AREA_DIR}/jws_algorithm.cpp
  ${AREA_DIR}/owner_filter.cpp
  ${AREA_DIR}/oidc_authenticator.cpp
  ${AREA_DIR}/principal.cpp
  ${AREA_DIR}/public_key.cpp
  ${AREA_DIR}/refresh_token_store.cpp
  ${AREA_DIR}/section_reader.cpp
  ${AREA_DIR}/token_checks.cpp
  ${AREA_DIR}/token_cipher.cpp
  ${AREA_DIR}/token_hash.cpp
  ${AREA_DIR}/token_keeper.cpp
)
list(APPEND SOURCES ${AREA_DIR}/iam_client_store.cpp)
