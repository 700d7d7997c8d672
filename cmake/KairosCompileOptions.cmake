# Compile options shared by the runtime, its tests and generated node projects.
include_guard(GLOBAL)

if(NOT DEFINED KAIROS_WARNINGS_AS_ERRORS)
  set(KAIROS_WARNINGS_AS_ERRORS ON)
endif()

# Strict warnings for code Kairos owns or generates.
function(kairos_strict_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
    -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align -Wformat=2 -Wimplicit-fallthrough
    -Wnull-dereference -Wdouble-promotion)
  if(KAIROS_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(KAIROS_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${KAIROS_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${KAIROS_SANITIZE})
  endif()
endfunction()
