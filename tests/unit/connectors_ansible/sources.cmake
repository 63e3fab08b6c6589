# The bounded child process native contextualisation runs ansible-playbook in.
set(TEST_SOURCES
  ${TEST_DIR}/bounded_process_test.cpp
)
set(TEST_LIBS orch::connectors)
