// Kernel Adaptation Layer: threads with abstract priority bands.
#pragma once

#include <cstddef>

#include <kairos/kal/error.hpp>
#include <kairos/kal/native_thread.hpp>

namespace kairos::kal {

/// Abstract priority band: 0 is the least urgent, kHighestBand the most. The platform maps
/// bands onto its own priorities, so models and tables never carry OS priority numbers.
using PriorityBand = int;
inline constexpr PriorityBand kLowestBand = 0;
inline constexpr PriorityBand kHighestBand = 63;

/// How the platform could honour priority bands.
enum class SchedulingMode {
  kRealTime,    ///< strict fixed priorities (SCHED_FIFO on Linux)
  kBestEffort,  ///< priorities could not be set; the OS time-shares threads
  kSimulated,   ///< strict priorities on a simulated processor, in virtual time
};

/// The mode as reports and files name it: "real-time", "best-effort" or "simulated".
constexpr const char* to_string(SchedulingMode mode) noexcept {
  switch (mode) {
    case SchedulingMode::kRealTime:
      return "real-time";
    case SchedulingMode::kBestEffort:
      return "best-effort";
    case SchedulingMode::kSimulated:
      return "simulated";
  }
  return "best-effort";
}

struct ThreadAttributes {
  const char* name = "kairos";  ///< shown by the OS (truncated to its limit)
  PriorityBand band = kLowestBand;
  /// CPU to pin the thread to, or -1 for any (on a simulated platform: its virtual processor,
  /// -1 meaning processor 0).
  int cpu = -1;
  /// Stack reserved (and, with locked memory, faulted in) at creation; small by default
  /// because method bodies must not recurse deeply or keep large buffers on the stack.
  std::size_t stack_bytes = 256 * 1024;
  /// Ask for a real-time priority (false: time-shared, e.g. to measure the difference).
  bool real_time = true;
};

/// A platform thread. Start-up may fail (returns an error); running it costs nothing.
class Thread {
 public:
  using Entry = void (*)(void* context) noexcept;

  Thread() = default;
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  ~Thread();

  /// Creates the thread at its band; falls back to best effort (warning once) if the OS
  /// refuses real-time priorities.
  Status start(const ThreadAttributes& attributes, Entry entry, void* context) noexcept;

  /// Waits for the thread to return from its entry function.
  void join() noexcept;

  bool joinable() const noexcept { return started_; }

 private:
  static void* run(void* self) noexcept;

  NativeThread native_{};
  Entry entry_ = nullptr;
  void* context_ = nullptr;
  bool started_ = false;
};

/// The mode threads started so far obtained (real time until a start had to fall back; always
/// simulated on a simulated platform).
SchedulingMode scheduling_mode() noexcept;

/// True when this process may run threads on processor `cpu` (ThreadAttributes::cpu): on Linux,
/// when it is in the process's affinity mask; on a simulated platform, when the simulated machine
/// has that virtual processor (only CPU 0 until provision_processors asks for more).
bool cpu_available(int cpu) noexcept;

/// Asks for a machine of at least `count` processors. A simulated machine starts with one
/// virtual processor and grows to `count` (it never shrinks; kCapacityExceeded beyond its
/// limit of 8). A real machine has the CPUs it has: kOk, and cpu_available says which of them
/// this process may use. kInvalidArgument when `count` < 1.
Status provision_processors(int count) noexcept;

}  // namespace kairos::kal
