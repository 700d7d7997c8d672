// Linux: a timer is a timerfd on CLOCK_MONOTONIC.
#pragma once

namespace kairos::kal {

struct NativeTimer {
  int fd = -1;
  bool armed = false;
};

}  // namespace kairos::kal
