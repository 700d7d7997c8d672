// The time trigger's own state, on its own thread's stack for the run: where the releases are,
// the deadlines and GCTs it watches, and the requests waiting for admission.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <kairos/engine.hpp>

#include "engine_state.hpp"
#include "release_cursor.hpp"
#include "watchdogs.hpp"

namespace kairos {

struct Engine::Trigger {
  explicit Trigger(const Engine& engine) noexcept
      : spm_rows(spm_rows_of(engine)),
        svm_rows(svm_rows_of(engine)),
        cursor(std::span{spm_rows.data(), engine.state_->binding_count},
               engine.state_->release_table, engine.state_->hyperperiod, engine.state_->epoch,
               engine.state_->end),
        deadlines(std::span{spm_rows.data(), engine.state_->binding_count}, cursor),
        gcts(std::span{svm_rows.data(), engine.state_->service_count}) {}
  // The cursor and the watchdogs read the rows where they stand, in this object.
  Trigger(const Trigger&) = delete;
  Trigger& operator=(const Trigger&) = delete;

  /// The rows' entries, the one copy the cursor and the watchdogs read.
  std::array<const SpmEntry*, kMaxSpms> spm_rows;
  std::array<const SvmEntry*, kMaxSvms> svm_rows;
  ReleaseCursor cursor;
  DeadlineWatchdog deadlines;
  GctWatchdog gcts;
  /// Requests waiting for admission, in arrival order.
  std::array<Request, kRequestCapacity> pending{};
  std::size_t pending_count = 0;
  /// Activations and requests handed to lanes, numbered: the FIFO order inside a band.
  std::uint64_t arrivals = 0;
  /// Lanes to wake, fired just before the trigger sleeps: on a shared CPU the more urgent
  /// trigger would otherwise delay the lane by whatever bookkeeping followed the wake-up.
  std::uint32_t lanes_to_wake = 0;
  /// Whether the trigger has taken in a stop (request_stop): nothing is released any more, and
  /// requests are no longer accepted.
  bool stopping = false;

  /// Takes in a stop asked for: nothing is released at or after `now`; what was released still
  /// runs and is watched, requests are taken in for `serve_after` more (the calls of what was
  /// released), and still_serving then winds them down as at the end of the run.
  void take_stop(State& state, kal::TimePoint now, kal::Duration serve_after) noexcept {
    if (!stopping && state.stop_requested.load(std::memory_order_acquire)) {
      stopping = true;
      cursor.end_at(now);
      state.stop_serving_at.store(
          (now + std::max(kal::Duration::zero(), serve_after)).time_since_epoch().count(),
          std::memory_order_relaxed);
    }
  }

 private:
  static std::array<const SpmEntry*, kMaxSpms> spm_rows_of(const Engine& engine) noexcept {
    std::array<const SpmEntry*, kMaxSpms> rows{};
    for (std::size_t i = 0; i < engine.state_->binding_count; ++i) {
      rows[i] = engine.state_->bindings[i].entry;
    }
    return rows;
  }
  static std::array<const SvmEntry*, kMaxSvms> svm_rows_of(const Engine& engine) noexcept {
    std::array<const SvmEntry*, kMaxSvms> rows{};
    for (std::size_t i = 0; i < engine.state_->service_count; ++i) {
      rows[i] = engine.state_->services[i].entry;
    }
    return rows;
  }
};

}  // namespace kairos
