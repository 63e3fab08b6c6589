# REST handlers through the router, socket-free: test_support/handler_harness.hpp over the
# in-memory stores (no server process, no PostgreSQL).
set(TEST_SOURCES
  ${TEST_DIR}/deployment_handlers_test.cpp
  ${TEST_DIR}/types_routes_test.cpp
  ${TEST_DIR}/quota_routes_test.cpp
)
set(TEST_LIBS orch::orchestrator orch_test_fakes)
