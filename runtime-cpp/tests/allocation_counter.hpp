// Counts heap allocations in the whole test program (the global operator new is replaced).
#pragma once

#include <cstdint>

namespace testing {
std::uint64_t allocations() noexcept;
}
