// Counts mutex locks in the whole test program: pthread_mutex_lock and pthread_mutex_trylock are
// interposed (the runtime's locks, and those of the C++ library, go through them).
#pragma once

#include <cstdint>

namespace testing {
std::uint64_t mutex_locks() noexcept;
}
