# orch_embed_files(<target> <namespace> <function> FILES ...): compiles text files into the binary
# as a sorted table {name, content}, so the executable needs no data files beside it at run time.
function(orch_embed_files target ns fn)
  cmake_parse_arguments(ARG "" "" "FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${fn}_embedded.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} -DFN=${fn} "-DFILES=${ARG_FILES}" -P ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
