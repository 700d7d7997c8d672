#include <kairos/kal/memory.hpp>

#include <cerrno>
#include <sys/mman.h>

namespace kairos::kal {

Status lock_memory() noexcept {
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    return Status::kOk;
  }
  return errno == EPERM ? Status::kPermissionDenied : Status::kResourceExhausted;
}

}  // namespace kairos::kal
