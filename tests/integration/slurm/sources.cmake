# Integration tests of the Slurm connector against a real slurmctld + slurmd + slurmrestd + munge
# (scripts/slurm/start), started once per ctest run by the `slurm` fixture and stopped by PID.
set(TEST_SOURCES
  ${TEST_DIR}/slurm_rig.cpp
  ${TEST_DIR}/slurm_connector_test.cpp
)
set(TEST_LIBS orch::connectors)

set(ORCH_SLURM_TEST_DIR ${PROJECT_BINARY_DIR}/test-slurm)
add_test(NAME slurm.start COMMAND ${PROJECT_SOURCE_DIR}/scripts/slurm/start ${ORCH_SLURM_TEST_DIR})
add_test(NAME slurm.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/slurm/stop ${ORCH_SLURM_TEST_DIR})
set_tests_properties(slurm.start PROPERTIES FIXTURES_SETUP slurm LABELS "integration;slurm" TIMEOUT 120)
set_tests_properties(slurm.stop PROPERTIES FIXTURES_CLEANUP slurm LABELS "integration;slurm" TIMEOUT 60)

# The tests discovered from integration_slurm must require the fixture and carry the `slurm` label.
# tests/CMakeLists.txt offers no hook for extra fixtures (and TEST_LABELS with a value breaks the
# generated set_tests_properties call), so a small CTest include file, run after Catch's discovery
# file (the deferred call lands after catch_discover_tests), sets both on every discovered test.
set(_slurm_fixture_file ${CMAKE_CURRENT_BINARY_DIR}/integration_slurm_fixtures.cmake)
file(WRITE ${_slurm_fixture_file}
  "if(integration_slurm_TESTS)\n"
  "  set_tests_properties(\${integration_slurm_TESTS} PROPERTIES FIXTURES_REQUIRED \"pg;slurm\" LABELS \"integration;slurm\")\n"
  "endif()\n")
# EVAL pins the file name now; a plain DEFER would read the variable after this scope is gone.
cmake_language(EVAL CODE "
  cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL
    set_property DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] APPEND PROPERTY TEST_INCLUDE_FILES [[${_slurm_fixture_file}]])")
