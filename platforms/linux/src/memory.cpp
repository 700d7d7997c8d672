#include <kairos/kal/memory.hpp>

#include <sys/mman.h>
#include <atomic>
#include <cerrno>

namespace kairos::kal {

Status lock_memory() noexcept {
  // Once locked with MCL_FUTURE, every later mapping is locked as it is made: locking again would
  // only walk the whole address space once more, holding its lock. A refusal is remembered and
  // said once, however many parts of the node ask.
  static std::atomic<Status> outcome{Status::kUnavailable};
  const Status known = outcome.load(std::memory_order_acquire);
  if (known != Status::kUnavailable) {
    return known;
  }
  Status status = Status::kOk;
  if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    status = errno == EPERM ? Status::kPermissionDenied : Status::kResourceExhausted;
  }
  Status expected = Status::kUnavailable;
  if (outcome.compare_exchange_strong(expected, status, std::memory_order_acq_rel) &&
      status != Status::kOk) {
    report(Severity::kWarning, "memory", "mlockall refused; page faults may delay methods");
  }
  return status;
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
