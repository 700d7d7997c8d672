#include "mutex_counter.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <atomic>

namespace {
using LockFunction = int (*)(pthread_mutex_t*);

std::atomic<std::uint64_t> lock_count{0};
std::atomic<LockFunction> next_lock{nullptr};
std::atomic<LockFunction> next_trylock{nullptr};

LockFunction resolve(std::atomic<LockFunction>& slot, const char* name) {
  LockFunction function = slot.load(std::memory_order_acquire);
  if (function == nullptr) {
    // The next definition after this program's: the C library's.
    function = reinterpret_cast<LockFunction>(dlsym(RTLD_NEXT, name));
    slot.store(function, std::memory_order_release);
  }
  return function;
}
}  // namespace

namespace testing {
std::uint64_t mutex_locks() noexcept {
  return lock_count.load();
}
}  // namespace testing

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex) {
  lock_count.fetch_add(1, std::memory_order_relaxed);
  return resolve(next_lock, "pthread_mutex_lock")(mutex);
}

extern "C" int pthread_mutex_trylock(pthread_mutex_t* mutex) {
  lock_count.fetch_add(1, std::memory_order_relaxed);
  return resolve(next_trylock, "pthread_mutex_trylock")(mutex);
}
