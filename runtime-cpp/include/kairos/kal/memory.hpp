// Kernel Adaptation Layer: memory. Everything a node needs is acquired at start-up.
#pragma once

#include <cstddef>

#include <kairos/kal/error.hpp>

namespace kairos::kal {

/// Locks current and future pages in RAM so that page faults never delay a method. Returns
/// kPermissionDenied (and the node keeps running) where the OS refuses, saying so once (a
/// warning through kal::report); later calls return the first outcome.
Status lock_memory() noexcept;

/// A block of memory acquired once, at start-up, and locked in RAM where the OS permits.
class MemoryRegion {
 public:
  MemoryRegion() = default;
  MemoryRegion(const MemoryRegion&) = delete;
  MemoryRegion& operator=(const MemoryRegion&) = delete;
  ~MemoryRegion();

  /// Acquires `bytes` of zeroed memory (page-aligned); only once per region.
  Status reserve(std::size_t bytes) noexcept;

  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kairos::kal
