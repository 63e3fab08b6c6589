# Native contextualisation: Ansible (ansible-playbook over SSH) on the servers a VM connector made.
set(SOURCES
  ${AREA_DIR}/ansible_contextualiser.cpp
  ${AREA_DIR}/ansible_facts.cpp
  ${AREA_DIR}/ansible_files.cpp
  ${AREA_DIR}/bounded_process.cpp
  ${AREA_DIR}/context_plan.cpp
  ${AREA_DIR}/context_progress.cpp
  ${AREA_DIR}/context_values.cpp
  ${AREA_DIR}/contextualising_connector.cpp
)
