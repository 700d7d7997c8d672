// Simulated time: a timer is its next expiry and period in virtual time.
#pragma once

#include <cstdint>

namespace kairos::kal {

struct NativeTimer {
  std::int64_t next_ns = 0;
  std::int64_t period_ns = 0;
  bool armed = false;
};

}  // namespace kairos::kal
