# Native contextualisation with real Ansible: the tests start one real sshd per "server" on a
# loopback address (127.0.0.x, distinct ports) accepting the deployment's key, and run the real
# ansible-playbook (Debian ansible-core) against them with the small roles under roles/.
set(TEST_SOURCES
  ${TEST_DIR}/ansible_contextualiser_test.cpp
  ${TEST_DIR}/ssh_host.cpp
)
set(TEST_LIBS orch::connectors)
set(TEST_LABELS ansible)
