# Hostile input at the API edge against the real binary (issue 16, classes 5-7): callback
# egress, NUL/UTF-8 at the edge, repeated headers, forwarded headers. Shares the API harness.
set(TEST_SOURCES
  ${TEST_DIR}/../api/api_harness.cpp
  ${TEST_DIR}/egress_e2e_test.cpp
  ${TEST_DIR}/edge_input_e2e_test.cpp
)
set(TEST_LIBS orch::orchestrator)
set(TEST_LABELS security)
