# Compile options shared by the runtime, its tests and generated node projects.
include_guard(GLOBAL)

if(NOT DEFINED KAIROS_WARNINGS_AS_ERRORS)
  set(KAIROS_WARNINGS_AS_ERRORS ON)
endif()

# Hand-written method bodies are the user's code: they get the compiler's default warnings, and
# Kairos's strict ones only where a project asks for them.
option(KAIROS_STRICT_BODIES
  "Compile hand-written method bodies with Kairos's strict warnings too" OFF)

# Strict warnings for code Kairos owns or generates: on the whole target, or with
# SOURCES <files>... on those sources only (a node's generated sources, beside hand-written
# bodies that keep the compiler's defaults unless KAIROS_STRICT_BODIES is ON).
function(kairos_strict_warnings target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  set(options
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
    -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align -Wformat=2 -Wimplicit-fallthrough
    -Wnull-dereference -Wdouble-promotion)
  if(KAIROS_WARNINGS_AS_ERRORS)
    list(APPEND options -Werror)
  endif()
  if(arg_SOURCES AND NOT KAIROS_STRICT_BODIES)
    set_property(SOURCE ${arg_SOURCES} TARGET_DIRECTORY ${target}
      APPEND PROPERTY COMPILE_OPTIONS ${options})
  else()
    target_compile_options(${target} PRIVATE ${options})
  endif()
  kairos_sanitize(${target})
endfunction()

# The sanitizers KAIROS_SANITIZE names (e.g. address,undefined), on the whole target.
function(kairos_sanitize target)
  if(KAIROS_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${KAIROS_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${KAIROS_SANITIZE})
  endif()
endfunction()
