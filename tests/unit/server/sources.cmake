# The HTTP server's streamed responses on loopback: idle streams paced by one timer per I/O
# thread, news still going out, a stopping server ending them, a client that does not read
# dropped. Labelled reliability as well: it is how the server holds up under many idle streams.
set(TEST_SOURCES
  ${TEST_DIR}/stream_pacing_test.cpp
)
set(TEST_LIBS orch::orchestrator_server)
set(TEST_LABELS reliability)
