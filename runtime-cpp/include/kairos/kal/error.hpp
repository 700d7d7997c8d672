// Kernel Adaptation Layer: error reporting without allocation.
#pragma once

#include <cstdint>

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

/// Writes one line `kairos: <severity>: <component>: <message>` to the error stream: at once
/// until start_log_drain; from then on the line (cut at 1,023 bytes) is queued for the drain
/// thread and report never blocks, whatever the stream does (a pipe nobody reads, a slow
/// terminal). Beyond 100 lines a second, or 128 waiting, lines are dropped and counted
/// (log_lines_dropped).
void report(Severity severity, const char* component, const char* message) noexcept;

/// Starts the thread that writes queued lines to the error stream, at normal priority: from here
/// on, a real-time thread that reports (an ORB reader refusing a frame, a lane) never waits for
/// the stream. Call it at start-up, before real-time threads exist. False (after saying so) when
/// the thread cannot be made: lines are then written at once, as before.
bool start_log_drain() noexcept;

/// Writes what is queued, waiting at most 200 ms for a full stream (what it cannot write stays
/// queued): before a node's last lines, so that its warnings come before its summary.
void flush_log() noexcept;

/// Lines report dropped since start-up: over the rate, or with the queue full.
std::uint64_t log_lines_dropped() noexcept;

}  // namespace kairos::kal
