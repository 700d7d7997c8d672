// Linux-internal: how priority bands map onto SCHED_FIFO priorities.
#pragma once

#include <kairos/kal/thread.hpp>

namespace kairos::kal {

/// The SCHED_FIFO priority of a band (bands 0..63 map to 20..83).
int fifo_priority(PriorityBand band) noexcept;

/// Whether this process may use real-time priorities at all (root, or RLIMIT_RTPRIO).
bool real_time_permitted() noexcept;

}  // namespace kairos::kal
