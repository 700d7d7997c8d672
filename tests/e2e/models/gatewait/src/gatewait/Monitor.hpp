// gatewait/Monitor.hpp — method bodies of TMO Monitor (gatewait.tmo).
#pragma once

#include "gatewait/Monitor.base.hpp"

namespace gatewait {

class Monitor final : public MonitorBase {
 private:
  // Called by the engine through MonitorBase's private entry points, which lend each method the
  // segments it uses.
  void watch(WatchAccess ods, WatchChannels channels) override;
};

}  // namespace gatewait
