#include <kairos/kal/error.hpp>

namespace kairos::kal {

const char* to_string(Status status) noexcept {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kInvalidArgument:
      return "invalid argument";
    case Status::kCapacityExceeded:
      return "capacity exceeded";
    case Status::kPermissionDenied:
      return "permission denied";
    case Status::kResourceExhausted:
      return "resource exhausted";
    case Status::kUnavailable:
      return "unavailable";
    case Status::kPlatformError:
      return "platform error";
    case Status::kRateExceeded:
      return "rate exceeded";
    case Status::kAddressInUse:
      return "address in use: another process (another node?) listens there";
  }
  return "unknown status";
}

}  // namespace kairos::kal
