# Kernel Adaptation Layer for Linux: pthreads, futexes, clock_nanosleep, mlockall.
set(KAIROS_PLATFORM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/clock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../posix/src/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/execution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/mutex.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/shared_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/thread.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/timer.cpp)
set(KAIROS_PLATFORM_LIBRARIES Threads::Threads)
