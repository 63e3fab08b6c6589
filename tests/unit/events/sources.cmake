# The event streams (SSE) at the API edge: framing that user text cannot break, Last-Event-ID
# from hostile clients, stream limits, resuming, heartbeats. Labelled security as well: the
# framing and the id parsing are hostile-input checks.
set(TEST_SOURCES
  ${TEST_DIR}/event_stream_test.cpp
)
set(TEST_LIBS orch::orchestrator orch_test_fakes)
set(TEST_LABELS security)
