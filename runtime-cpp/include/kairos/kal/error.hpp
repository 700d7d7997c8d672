// Kernel Adaptation Layer: error reporting without allocation.
#pragma once

namespace kairos::kal {

enum class Status {
  kOk,
  kInvalidArgument,
  kCapacityExceeded,
  kPermissionDenied,
  kResourceExhausted,
  kUnavailable,  ///< not possible now (e.g. outside the run), though the call itself is valid
  kPlatformError,
  kRateExceeded,  ///< sooner than the agreed rate allows (a service method's max-rate)
  kAddressInUse,  ///< another socket, of this process or another, already listens there
};

/// Short, static text for a status (never allocates).
const char* to_string(Status status) noexcept;

enum class Severity { kInfo, kWarning, kError };

/// Writes one line `kairos: <severity>: <component>: <message>` to the error stream.
void report(Severity severity, const char* component, const char* message) noexcept;

}  // namespace kairos::kal
