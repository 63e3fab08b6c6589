set(TEST_SOURCES
  ${TEST_DIR}/bad_http_test.cpp
)
# The discovered tests also carry the `reliability` label. TEST_LABELS cannot carry it (its value
# breaks the generated set_tests_properties call), so, as tests/integration/slurm does, a CTest
# include file run after Catch's discovery file sets the labels on every discovered test.
set(_reliability_labels_file ${CMAKE_CURRENT_BINARY_DIR}/e2e_reliability_labels.cmake)
file(WRITE ${_reliability_labels_file}
  "if(e2e_reliability_TESTS)\n"
  "  set_tests_properties(\${e2e_reliability_TESTS} PROPERTIES LABELS \"e2e;reliability\")\n"
  "endif()\n")
cmake_language(EVAL CODE "
  cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL
    set_property DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] APPEND PROPERTY TEST_INCLUDE_FILES [[${_reliability_labels_file}]])")

# libFuzzer targets (tests/fuzz/run-fuzz: clang, ASan+UBSan), ~20 s of fuzzing each; the build
# directories live in the build tree. One at a time: they share the machine's cores.
foreach(_fuzz_target IN ITEMS tosca request token)
  add_test(NAME reliability.fuzz.${_fuzz_target}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/fuzz/run-fuzz 20 ${_fuzz_target})
  set_tests_properties(reliability.fuzz.${_fuzz_target} PROPERTIES
    LABELS reliability TIMEOUT 1200 RESOURCE_LOCK fuzz
    ENVIRONMENT "FUZZ_BUILD_DIR=${PROJECT_BINARY_DIR}/fuzz-orchestrator;TOSCA_FUZZ_BUILD_DIR=${PROJECT_BINARY_DIR}/fuzz-tosca")
endforeach()
