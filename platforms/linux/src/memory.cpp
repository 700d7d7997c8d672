#include <kairos/kal/memory.hpp>

#include <sys/mman.h>
#include <cerrno>

namespace kairos::kal {

Status lock_memory() noexcept {
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    return Status::kOk;
  }
  return errno == EPERM ? Status::kPermissionDenied : Status::kResourceExhausted;
}

}  // namespace kairos::kal
