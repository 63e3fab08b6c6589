# orch_collect_fragments(<out_var> <dir>): gathers SOURCES from <dir>/*/sources.cmake.
# Big modules are split by area (src/<area>/sources.cmake) so each area's file list lives beside it.
macro(orch_collect_fragments out_var dir)
  set(${out_var} "")
  file(GLOB _frags CONFIGURE_DEPENDS ${dir}/*/sources.cmake)
  list(SORT _frags)
  foreach(_frag IN LISTS _frags)
    set(SOURCES "")
    get_filename_component(AREA_DIR ${_frag} DIRECTORY)
    include(${_frag})
    list(APPEND ${out_var} ${SOURCES})
  endforeach()
endmacro()
