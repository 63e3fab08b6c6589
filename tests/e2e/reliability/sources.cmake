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
