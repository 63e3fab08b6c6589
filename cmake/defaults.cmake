# orch_target_defaults(<target>): C++20 and our warning set on one of our own targets.
# Third-party headers are system headers, so -Werror only ever judges our code.
function(orch_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wformat=2 -Wundef -Wimplicit-fallthrough
    -Wextra-semi -Woverloaded-virtual -Wnon-virtual-dtor -Wold-style-cast
    # Designated initializers (our style for options structs) leave the rest defaulted on purpose.
    -Wno-missing-field-initializers
    # g++ 12 reports std::optional and std::regex internals as maybe-uninitialized at -O1/-O2
    # (false positives, also under ASan); ASan+UBSan and valgrind are the real checks here.
    -Wno-maybe-uninitialized)
  if(ORCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# orch_module(<name> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]): one static library per module folder,
# public headers under include/<name>/, private code under src/.
function(orch_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(orch_${name} STATIC ${ARG_SOURCES})
  add_library(orch::${name} ALIAS orch_${name})
  target_include_directories(orch_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(orch_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  orch_target_defaults(orch_${name})
endfunction()
