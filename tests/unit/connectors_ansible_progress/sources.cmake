# What native contextualisation reads of Ansible's output as it runs (the task headers that become
# "configuring node X (role R, task 'T')"): hostile and huge lines. Its own folder so the
# `security` label selects these and not every contextualisation test.
set(TEST_SOURCES
  ${TEST_DIR}/context_progress_test.cpp
)
set(TEST_LIBS orch::connectors)
set(TEST_LABELS security)
