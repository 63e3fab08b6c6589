# The bounded child process native contextualisation runs ansible-playbook in, and the steps it runs.
set(TEST_SOURCES
  ${TEST_DIR}/bounded_process_test.cpp
  ${TEST_DIR}/context_plan_test.cpp
  ${TEST_DIR}/contextualising_connector_test.cpp
  ${TEST_DIR}/step_runner_test.cpp
)
set(TEST_LIBS orch::connectors)
