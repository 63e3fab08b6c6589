set(TEST_SOURCES
  ${TEST_DIR}/bad_http_test.cpp
  ${TEST_DIR}/shutdown_test.cpp
)
set(TEST_LABELS reliability)

# libFuzzer targets (tests/fuzz/run-fuzz: clang, ASan+UBSan), ~15 s of fuzzing each; the build
# directories live in the build tree. One at a time: they share the machine's cores. A high COST
# makes ctest start them first: each builds its clang tree cold in a fresh checkout (5-8 min at
# load), and left to the end of the tier they ran serially after everything else (session 11).
foreach(_fuzz_target IN ITEMS tosca request token)
  add_test(NAME reliability.fuzz.${_fuzz_target}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/fuzz/run-fuzz 15 ${_fuzz_target})
  set_tests_properties(reliability.fuzz.${_fuzz_target} PROPERTIES
    LABELS reliability TIMEOUT 1200 RESOURCE_LOCK fuzz COST 100000
    ENVIRONMENT "FUZZ_BUILD_DIR=${PROJECT_BINARY_DIR}/fuzz-orchestrator;TOSCA_FUZZ_BUILD_DIR=${PROJECT_BINARY_DIR}/fuzz-tosca")
endforeach()
