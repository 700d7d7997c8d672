#include <kairos/kal/memory.hpp>

#include <sys/mman.h>
#include <atomic>
#include <cerrno>

namespace kairos::kal {

Status lock_memory() noexcept {
  // Once locked with MCL_FUTURE, every later mapping is locked as it is made: locking again would
  // only walk the whole address space once more, holding its lock.
  static std::atomic<bool> locked{false};
  if (locked.load(std::memory_order_acquire)) {
    return Status::kOk;
  }
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    locked.store(true, std::memory_order_release);
    return Status::kOk;
  }
  return errno == EPERM ? Status::kPermissionDenied : Status::kResourceExhausted;
}

}  // namespace kairos::kal

namespace kairos::kal {

MemoryRegion::~MemoryRegion() {
  if (data_ != nullptr) {
    munmap(data_, size_);
  }
}

Status MemoryRegion::reserve(std::size_t bytes) noexcept {
  if (data_ != nullptr || bytes == 0) {
    return Status::kInvalidArgument;
  }
  // MAP_POPULATE faults every page in now, not on first use by a method.
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) {
    return Status::kResourceExhausted;
  }
  mlock(memory, bytes);  // best effort: mlockall may already cover it, or be refused
  data_ = memory;
  size_ = bytes;
  return Status::kOk;
}

}  // namespace kairos::kal
