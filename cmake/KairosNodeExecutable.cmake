# A node's program from its generated sources and its hand-written method bodies, shared by
# generated node projects (their CMakeLists.txt) and kairos_generate.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/KairosCompileOptions.cmake")

# Every source of a node includes the runtime's headers, which cost most of its compile time:
# they are precompiled, once per platform for a whole project.
option(KAIROS_PRECOMPILE_HEADERS "Precompile the Kairos runtime's headers for node programs" ON)

# kairos_node_executable(<target> PLATFORM <os> GENERATED <sources>... [BODIES <sources>...]
#                        [INCLUDE_DIRECTORIES <dirs>...] [LIBRARIES <libraries>...])
# The generated sources are an object library of their own (<target>_generated) with Kairos's
# strict warnings; the bodies keep the compiler's defaults unless KAIROS_STRICT_BODIES is ON.
# Both link Kairos::runtime_<os> and see INCLUDE_DIRECTORIES. A node with LIBRARIES (channels on
# DDS) is one target, with nothing precompiled.
function(kairos_node_executable target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PLATFORM"
    "GENERATED;BODIES;INCLUDE_DIRECTORIES;LIBRARIES")
  if(NOT arg_PLATFORM OR NOT arg_GENERATED)
    message(FATAL_ERROR "kairos_node_executable(${target}): PLATFORM and GENERATED are required")
  endif()
  if(NOT arg_BODIES)
    # Nothing hand-written: one target, all of it Kairos's.
    add_executable(${target} ${arg_GENERATED})
    _kairos_node_part(${target} strict)
    return()
  endif()
  if(arg_LIBRARIES)
    # Libraries such as idlc's (an interface library with sources) would be compiled into each
    # half: one target, strict warnings on the generated sources only, nothing precompiled.
    add_executable(${target} ${arg_GENERATED} ${arg_BODIES})
    target_include_directories(${target} PRIVATE ${arg_INCLUDE_DIRECTORIES})
    target_link_libraries(${target} PRIVATE Kairos::runtime_${arg_PLATFORM} ${arg_LIBRARIES})
    kairos_strict_warnings(${target} SOURCES ${arg_GENERATED})
    return()
  endif()
  # The generated sources and the bodies differ in their warning options, which decide predefined
  # macros (GCC's -Wpedantic): each half has its own precompiled headers.
  set(generated ${target}_generated)
  add_library(${generated} OBJECT ${arg_GENERATED})
  add_executable(${target} ${arg_BODIES})
  target_link_libraries(${target} PRIVATE ${generated})
  _kairos_node_part(${generated} strict)
  if(KAIROS_STRICT_BODIES)
    _kairos_node_part(${target} strict)
  else()
    _kairos_node_part(${target} defaults)
  endif()
endfunction()

# One part of a node's program: its runtime, libraries and include directories, its warnings
# (`strict` or the compiler's `defaults`) and the runtime's precompiled headers, which the first
# part built a given way compiles and every later one reuses.
macro(_kairos_node_part part warnings)
  target_include_directories(${part} PRIVATE ${arg_INCLUDE_DIRECTORIES})
  target_link_libraries(${part} PRIVATE Kairos::runtime_${arg_PLATFORM} ${arg_LIBRARIES})
  if("${warnings}" STREQUAL "strict")
    kairos_strict_warnings(${part})
  else()
    kairos_sanitize(${part})
  endif()
  if(KAIROS_PRECOMPILE_HEADERS)
    string(MD5 _kairos_key "${CMAKE_BUILD_TYPE};${arg_PLATFORM};${warnings};${arg_LIBRARIES}")
    get_property(_kairos_first GLOBAL PROPERTY _kairos_precompiled_${_kairos_key})
    if(_kairos_first)
      target_precompile_headers(${part} REUSE_FROM ${_kairos_first})
    else()
      # The runtime headers that every node's generated sources include (C++ only: a project
      # with channels on DDS compiles C too).
      set(_kairos_headers
        <kairos/node.hpp> <kairos/engine.hpp> <kairos/binding.hpp> <kairos/schedule.hpp>
        <kairos/bounded.hpp> <kairos/cdr.hpp> <kairos/orb/orb.hpp> <kairos/orb/gate.hpp>
        <kairos/orb/service.hpp> <array> <chrono> <cstddef> <cstdint> <span> <string_view>)
      list(TRANSFORM _kairos_headers REPLACE "^<(.+)>$" "$<$<COMPILE_LANGUAGE:CXX>:<\\1$<ANGLE-R>>")
      target_precompile_headers(${part} PRIVATE ${_kairos_headers})
      set_property(GLOBAL PROPERTY _kairos_precompiled_${_kairos_key} ${part})
    endif()
  endif()
endmacro()
