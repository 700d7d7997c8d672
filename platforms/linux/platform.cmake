# Kernel Adaptation Layer for Linux: pthreads, futexes, clock_nanosleep, mlockall, OpenSSL.
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
  ${CMAKE_CURRENT_LIST_DIR}/src/tls.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/timer.cpp)
# OpenSSL 3: the TLS handshake of tcp: connections and the AES-GCM of their records.
set(KAIROS_PLATFORM_LIBRARIES Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
