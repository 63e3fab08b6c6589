# Hostile input at the API edge (issue 16, classes 5-7): egress policy, request checks, error
# bodies, forwarded headers. Its own folder so the `security` label selects exactly these.
set(TEST_SOURCES
  ${TEST_DIR}/ip_address_test.cpp
  ${TEST_DIR}/egress_policy_test.cpp
  ${TEST_DIR}/egress_client_test.cpp
  ${TEST_DIR}/request_checks_test.cpp
  ${TEST_DIR}/input_checks_test.cpp
  ${TEST_DIR}/error_body_test.cpp
  ${TEST_DIR}/forwarded_links_test.cpp
)
set(TEST_LIBS orch::orchestrator)
set(TEST_LABELS security)
