// Kernel Adaptation Layer: memory. Everything a node needs is acquired at start-up.
#pragma once

#include <kairos/kal/error.hpp>

namespace kairos::kal {

/// Locks current and future pages in RAM so that page faults never delay a method.
/// Returns kPermissionDenied (and the node keeps running) where the OS refuses.
Status lock_memory() noexcept;

}  // namespace kairos::kal
