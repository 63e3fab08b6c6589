# Reliability e2e suite: the real orchestrator binary (killed, replicated, cut from its database),
# real PostgreSQL, real site-sim processes as the sites.
set(TEST_SOURCES
  ${TEST_DIR}/reliability_harness.cpp
  ${TEST_DIR}/crash_test.cpp
  ${TEST_DIR}/two_replica_test.cpp
  ${TEST_DIR}/database_outage_test.cpp
)

# The discovered tests carry the labels e2e and reliability. TEST_LABELS cannot say so (a list
# value breaks the generated set_tests_properties call), so, as tests/integration/slurm does, a
# CTest include file run after Catch's discovery file sets the labels on every discovered test.
set(_reliability_labels_file ${CMAKE_CURRENT_BINARY_DIR}/e2e_workflow_labels.cmake)
file(WRITE ${_reliability_labels_file}
  "if(e2e_workflow_TESTS)\n"
  "  set_tests_properties(\${e2e_workflow_TESTS} PROPERTIES LABELS \"e2e;reliability\")\n"
  "endif()\n")
cmake_language(EVAL CODE "
  cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL
    set_property DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] APPEND PROPERTY TEST_INCLUDE_FILES [[${_reliability_labels_file}]])")
