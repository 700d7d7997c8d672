# The kairos command, installed beside the runtime and the CMake package:
#   bin/kairos                                     the launcher (the checkout's ./kairos)
#   share/kairos/kairos.jar                        the CLI, built by Maven (make java)
#   share/kairos/clang-format-<version>/clang-format   the pinned clang-format generate formats with
# The launcher finds the other two at ../share/kairos, so both directories keep these names
# whatever CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_DATADIR say. The jar is built outside CMake:
# whether it is there is decided when installing, and without it the runtime and the package are
# installed, the command is not, and a warning says why.
option(KAIROS_INSTALL_COMMAND "Install the kairos command (bin/kairos and share/kairos/)" ON)
set(KAIROS_COMMAND_JAR "${PROJECT_SOURCE_DIR}/generator/target/kairos.jar" CACHE FILEPATH
  "The kairos CLI jar to install (make java builds it)")

if(KAIROS_INSTALL_COMMAND)
  install(CODE "
    set(_kairos_source \"${PROJECT_SOURCE_DIR}\")
    set(_kairos_jar \"${KAIROS_COMMAND_JAR}\")
    include(\"${PROJECT_SOURCE_DIR}/cmake/KairosCommandInstallSteps.cmake\")
  ")
endif()
