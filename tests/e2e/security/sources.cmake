# Hostile input against the real binaries: YAML alias amplification through the API, and
# tosca-check on endless or oversized input. Memory is measured on the processes themselves.
set(TEST_SOURCES
  ${TEST_DIR}/alias_bomb_test.cpp
  ${TEST_DIR}/tosca_check_input_test.cpp
)
set(TEST_LABELS security)
