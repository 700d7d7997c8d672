# kairos_generate(): a node of a Kairos model as an executable of a CMake project, generated at
# build time. Installed with the package `Kairos` (find_package(Kairos) includes it); see
# docs/cmake.md.
#
#   kairos_generate(TARGET <target> MODEL <file.tmo>...
#                   [NODE <node>] [IMPL_DIR <dir>] [OUTPUT_DIR <dir>] [ALLOW_UNSCHEDULABLE])
#
# How it stays incremental: `kairos generate --outputs` lists the files a run writes and each
# node's sources (JSON that changes only when that set changes), and `--depfile` the files it
# reads. The list is an output of the generation step and a configure dependency of the project,
# so Ninja regenerates first, before it decides whether CMake must run again: a model edit that
# adds or renames files reconfigures once, any other edit reruns only the generation step and
# what depends on the files whose bytes changed.
include_guard(GLOBAL)

# The functions below keep the policies of CMake 3.25 whatever the project's (DEPFILE paths as
# CMP0116 reads them).
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)

# The kairos command that generates: the one installed with this package (KairosConfig.cmake says
# where), else one on the PATH.
find_program(KAIROS_EXECUTABLE NAMES kairos HINTS "${_Kairos_BINDIR}"
  DOC "The kairos command kairos_generate() runs")

# The JSON array at <keys...> of `json` as a CMake list in `out`.
function(_kairos_json_list out json)
  string(JSON count LENGTH "${json}" ${ARGN})
  set(values "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(index RANGE ${last})
      string(JSON value GET "${json}" ${ARGN} ${index})
      list(APPEND values "${value}")
    endforeach()
  endif()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

function(kairos_generate)
  cmake_parse_arguments(PARSE_ARGV 0 arg "ALLOW_UNSCHEDULABLE"
    "TARGET;NODE;IMPL_DIR;OUTPUT_DIR" "MODEL")
  set(usage "kairos_generate(TARGET <target> MODEL <file.tmo>... [NODE <node>] [IMPL_DIR <dir>] [OUTPUT_DIR <dir>] [ALLOW_UNSCHEDULABLE])")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kairos_generate: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}\nusage: ${usage}")
  endif()
  if(NOT arg_TARGET OR NOT arg_MODEL)
    message(FATAL_ERROR "kairos_generate: TARGET and MODEL are required\nusage: ${usage}")
  endif()
  set(target ${arg_TARGET})
  if(TARGET ${target})
    message(FATAL_ERROR "kairos_generate: a target named ${target} exists already")
  endif()
  if(NOT KAIROS_EXECUTABLE)
    message(FATAL_ERROR "kairos_generate(${target}): no kairos command: install Kairos with its "
      "command (make install PREFIX=...), put its bin/ on the PATH, or set KAIROS_EXECUTABLE")
  endif()

  set(models "")
  foreach(model IN LISTS arg_MODEL)
    cmake_path(ABSOLUTE_PATH model BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    if(NOT EXISTS "${model}")
      message(FATAL_ERROR "kairos_generate(${target}): no such model file: ${model}")
    endif()
    list(APPEND models "${model}")
  endforeach()
  # Hand-written bodies: src/ beside the first model unless IMPL_DIR says otherwise, as for
  # `kairos generate`.
  if(arg_IMPL_DIR)
    cmake_path(ABSOLUTE_PATH arg_IMPL_DIR BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
      OUTPUT_VARIABLE impl_dir)
  else()
    list(GET models 0 first_model)
    cmake_path(GET first_model PARENT_PATH impl_dir)
    cmake_path(APPEND impl_dir src)
  endif()
  set(state_dir "${CMAKE_CURRENT_BINARY_DIR}/kairos")
  if(arg_OUTPUT_DIR)
    cmake_path(ABSOLUTE_PATH arg_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
      OUTPUT_VARIABLE output_dir)
  else()
    set(output_dir "${state_dir}/${target}")
  endif()
  set(outputs_file "${state_dir}/${target}.outputs.json")
  set(depfile "${state_dir}/${target}.d")
  set(command "${KAIROS_EXECUTABLE}" generate ${models} -o "${output_dir}" --impl "${impl_dir}"
    --outputs "${outputs_file}" --depfile "${depfile}")
  if(arg_ALLOW_UNSCHEDULABLE)
    list(APPEND command --allow-unschedulable)
  endif()

  # Ninja runs the generation step before it decides whether to configure again (see the top of
  # this file). Other generators decide first, so with them any model edit configures again, and
  # the configure generates; and since Make has no restat, a stamp the step touches tells it the
  # step has run even where the generator left every file as it was.
  set(stamp "")
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${outputs_file}")
  else()
    set(stamp "${state_dir}/${target}.stamp")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${models})
  endif()

  # The list of outputs comes from a run of the generator. The build keeps it current; the first
  # configure (or one after this call changed) makes it by generating once now, which also writes
  # the starters of hand-written code that the node's sources need.
  set(call_file "${state_dir}/${target}.call")
  set(previous_call "")
  if(EXISTS "${call_file}")
    file(READ "${call_file}" previous_call)
  endif()
  set(stale FALSE)
  if(NOT EXISTS "${outputs_file}" OR NOT previous_call STREQUAL "${command}")
    set(stale TRUE)
  elseif(stamp)
    foreach(model IN LISTS models)
      if(NOT EXISTS "${stamp}" OR "${model}" IS_NEWER_THAN "${stamp}")
        set(stale TRUE)
      endif()
    endforeach()
  endif()
  if(stale)
    message(STATUS "kairos_generate(${target}): generating from ${arg_MODEL}")
    execute_process(COMMAND ${command}
      WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
      RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "kairos_generate(${target}): kairos generate failed (${status}):\n"
        "${output}${errors}")
    endif()
    if(errors)
      message(NOTICE "${errors}")
    endif()
    file(WRITE "${call_file}" "${command}")
    if(stamp)
      file(TOUCH "${stamp}")
    endif()
  endif()

  file(READ "${outputs_file}" outputs)
  string(JSON node_count LENGTH "${outputs}" nodes)
  set(node_names "")
  set(node_index -1)
  if(node_count GREATER 0)
    math(EXPR last "${node_count} - 1")
    foreach(index RANGE ${last})
      string(JSON name GET "${outputs}" nodes ${index} name)
      list(APPEND node_names ${name})
      if("${arg_NODE}" STREQUAL name OR (NOT arg_NODE AND node_count EQUAL 1))
        set(node_index ${index})
      endif()
    endforeach()
  endif()
  list(JOIN node_names ", " node_list)
  if(node_count EQUAL 0)
    message(FATAL_ERROR "kairos_generate(${target}): the model has no node to build")
  elseif(arg_NODE AND node_index EQUAL -1)
    message(FATAL_ERROR "kairos_generate(${target}): the model has no node ${arg_NODE} "
      "(its nodes: ${node_list})")
  elseif(node_index EQUAL -1)
    message(FATAL_ERROR "kairos_generate(${target}): the model has several nodes "
      "(${node_list}): name the one this target runs with NODE <node>")
  endif()
  string(JSON node GET "${outputs}" nodes ${node_index} name)
  string(JSON os GET "${outputs}" nodes ${node_index} os)
  _kairos_json_list(generated "${outputs}" generated)
  _kairos_json_list(sources "${outputs}" nodes ${node_index} sources)
  _kairos_json_list(user_sources "${outputs}" nodes ${node_index} user_sources)
  string(JSON manifest GET "${outputs}" manifest)
  if(NOT TARGET Kairos::runtime_${os})
    message(FATAL_ERROR "kairos_generate(${target}): its node runs on os ${os}, but this "
      "Kairos has no runtime for it (Kairos_PLATFORMS: ${Kairos_PLATFORMS})")
  endif()

  list(TRANSFORM arg_MODEL REPLACE "^.*/" "" OUTPUT_VARIABLE model_names)
  set(touch_stamp "")
  if(stamp)
    set(touch_stamp COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}")
  endif()
  add_custom_command(
    OUTPUT ${stamp} "${outputs_file}" ${generated} "${manifest}"
    COMMAND ${command}
    ${touch_stamp}
    DEPENDS ${models}
    DEPFILE "${depfile}"
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "Generating ${target} from ${model_names} with kairos"
    VERBATIM)
  kairos_node_executable(${target} PLATFORM ${os} GENERATED ${sources} BODIES ${user_sources}
    INCLUDE_DIRECTORIES "${output_dir}" "${impl_dir}")
  set_target_properties(${target} PROPERTIES
    KAIROS_NODE "${node}" KAIROS_OUTPUT_DIR "${output_dir}" KAIROS_IMPL_DIR "${impl_dir}")
endfunction()

cmake_policy(POP)
