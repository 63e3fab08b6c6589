# Runs the connectors against the site-sim binary over real HTTP on loopback.
set(TEST_SOURCES
  ${TEST_DIR}/connectors_over_http_test.cpp
)
set(TEST_LIBS orch::connectors)
