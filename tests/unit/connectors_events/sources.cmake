# The sites' change notifications (connectors/site_events): stream parsers fed hostile bytes
# (overlong lines and events, broken JSON, wrong types, deep nesting). Its own folder so the
# `security` label selects these and not every connector test.
set(TEST_SOURCES
  ${TEST_DIR}/site_events_test.cpp
)
set(TEST_LIBS orch::connectors)
set(TEST_LABELS security)
