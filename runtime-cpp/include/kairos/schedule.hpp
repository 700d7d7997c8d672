// Rows of the static tables `kairos generate` emits per node (<Node>.schedule.hpp). The runtime
// only reads them: every number here was computed and checked before deployment.
#pragma once

#include <cstdint>
#include <string_view>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos {

enum class Criticality : std::uint8_t { kHard, kSoft };

/// Marks an AAC that repeats without end (`to forever`).
inline constexpr kal::Duration kForever = kal::Duration::max();

/// One spontaneous (time-triggered) method of a deployed TMO, with its autonomous
/// activation condition. Offsets are relative to each release time `t`; releases are
/// relative to the node's start epoch.
struct SpmEntry {
  std::string_view instance;  ///< deployed TMO instance (`deploy X as <instance>`)
  std::string_view method;    ///< SpM name
  std::string_view source;    ///< model location, e.g. "hello.tmo:12"
  kal::Duration first_release;
  kal::Duration last_release;  ///< kForever for `to forever`
  kal::Duration period;        ///< zero for the one-shot form
  kal::Duration window_open;   ///< start-during (t + window_open, ...)
  kal::Duration window_close;  ///< start-during (..., t + window_close)
  kal::Duration deadline;      ///< finish-by t + deadline
  kal::Duration wcet;          ///< scaled to the node's hardware
  Criticality criticality;
  kal::PriorityBand band;
};

}  // namespace kairos
