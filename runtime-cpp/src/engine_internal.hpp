// What the engine's sources share and nobody else sees: the phases of an activation's progress,
// who holds a lane, and the decision every activation and request gets exactly once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include <kairos/kal/clock.hpp>

namespace kairos::engine_internal {

/// How often the thread that called run_for hands finished activation records to the observer,
/// and how often the time trigger looks at the request queue once releases are over.
inline constexpr kal::Duration kTracePollInterval = std::chrono::milliseconds{10};

/// How long before the run's first wake the time trigger warms the node's CPUs up
/// (Engine::warm_up), and how often it wakes itself and every lane meanwhile.
inline constexpr kal::Duration kWarmUp = std::chrono::milliseconds{20};
inline constexpr kal::Duration kWarmUpTick = std::chrono::milliseconds{1};

/// The time trigger's "no time": a row with no release left, nothing to watch.
inline constexpr kal::TimePoint kNever = kal::TimePoint::max();

/// Binding::next_window_ns of a row that has no release left.
inline constexpr std::int64_t kNoWindow = INT64_MAX;

constexpr std::int64_t since(kal::TimePoint epoch, kal::TimePoint t) noexcept {
  return (t - epoch).count();
}

// Phases of an SpM's progress word, 4 * sequence + phase (phase 0: waiting to start).
inline constexpr std::uint64_t kRunning = 1;
inline constexpr std::uint64_t kDecided = 2;

constexpr std::uint64_t progress_of(std::uint64_t sequence, std::uint64_t phase) noexcept {
  return 4 * sequence + phase;
}

/// Moves `progress` up to `target`; false when it was there or beyond already.
inline bool advance(std::atomic<std::uint64_t>& progress, std::uint64_t target) noexcept {
  std::uint64_t seen = progress.load(std::memory_order_acquire);
  while (seen < target) {
    if (progress.compare_exchange_weak(seen, target, std::memory_order_acq_rel)) {
      return true;
    }
  }
  return false;
}

/// Claims the decision on request `sequence`: true for the first claimant only (the lane at
/// completion or the watchdog at the GCT), so every request has one outcome, reported once.
inline bool claim_decision(std::atomic<std::uint64_t>& decided_through,
                           std::uint64_t sequence) noexcept {
  std::uint64_t decided = decided_through.load(std::memory_order_relaxed);
  do {
    if (decided > sequence) {
      return false;
    }
  } while (
      !decided_through.compare_exchange_weak(decided, sequence + 1, std::memory_order_acq_rel));
  return true;
}

// Who holds a lane (Lane::state): its own thread, or a borrower serving a request at once
// (serve_here) while the lane sleeps with nothing ready. kWanted: lent, and the lane's thread is
// waiting to have it back, which the borrower does by handing it over directly (kBusy), so that a
// stream of requests can never keep a lane from its own work.
enum LaneState : std::uint8_t { kLaneBusy = 0, kLaneIdle = 1, kLaneLent = 2, kLaneWanted = 3 };

}  // namespace kairos::engine_internal
