# Kernel Adaptation Layer on simulated time: virtual processors (one per core of the node),
# discrete events, priority-preemptive, deterministic. Threads are real pthreads of which exactly
# one executes at a time, handed its turn by the simulation kernel.
set(KAIROS_PLATFORM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kal.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/network.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/network_poller.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../posix/src/error.cpp)
set(KAIROS_PLATFORM_LIBRARIES Threads::Threads)
