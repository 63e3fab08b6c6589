# The chaos run of the reliability suite; shares the sites rig. It needs the label `reliability`
# besides `e2e`, but TEST_LABELS with a value breaks the generated set_tests_properties call
# (the list is split into property/value pairs), so, as tests/integration/slurm does, a CTest
# include file run after Catch's discovery file sets the labels on the discovered test.
set(TEST_SOURCES
  ${TEST_DIR}/../sites/site_rig.cpp
  ${TEST_DIR}/chaos_test.cpp
)

set(_chaos_labels_file ${CMAKE_CURRENT_BINARY_DIR}/e2e_chaos_labels.cmake)
file(WRITE ${_chaos_labels_file}
  "if(e2e_chaos_TESTS)\n"
  "  set_tests_properties(\${e2e_chaos_TESTS} PROPERTIES LABELS \"e2e;reliability\")\n"
  "endif()\n")
cmake_language(EVAL CODE "
  cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL
    set_property DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] APPEND PROPERTY TEST_INCLUDE_FILES [[${_chaos_labels_file}]])")
