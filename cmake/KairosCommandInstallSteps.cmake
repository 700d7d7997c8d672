# Run by `cmake --install` (cmake/KairosCommandInstall.cmake): installs the kairos command.
if(NOT EXISTS "${_kairos_jar}")
  message(WARNING "kairos command not installed: ${_kairos_jar} is not built (run `make java`, "
    "or `make install PREFIX=...`, which builds everything first)")
  return()
endif()
file(STRINGS "${_kairos_source}/scripts/clang-format.version" _kairos_clang_format_version
  LIMIT_COUNT 1)
string(STRIP "${_kairos_clang_format_version}" _kairos_clang_format_version)
# The pinned clang-format of the checkout (scripts/clang-format.sh installs it where missing).
execute_process(COMMAND "${_kairos_source}/scripts/clang-format.sh" --path
  RESULT_VARIABLE _kairos_status OUTPUT_VARIABLE _kairos_clang_format
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _kairos_status EQUAL 0 OR NOT EXISTS "${_kairos_clang_format}")
  message(FATAL_ERROR "kairos command: the pinned clang-format ${_kairos_clang_format_version} "
    "is not available (scripts/clang-format.sh --path failed)")
endif()
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/bin" TYPE PROGRAM
  FILES "${_kairos_source}/kairos")
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/kairos" TYPE FILE
  FILES "${_kairos_jar}" RENAME kairos.jar)
file(INSTALL
  DESTINATION "${CMAKE_INSTALL_PREFIX}/share/kairos/clang-format-${_kairos_clang_format_version}"
  TYPE PROGRAM FILES "${_kairos_clang_format}")
