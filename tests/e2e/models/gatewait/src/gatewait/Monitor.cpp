// gatewait/Monitor.cpp — method bodies of TMO Monitor (gatewait.tmo).
#include "gatewait/Monitor.hpp"

namespace gatewait {

void Monitor::watch(WatchAccess ods, WatchChannels channels) {
  ::kairos::channel::Sample<Status> sample;
  while (channels.status.take(sample)) {
    ods.heard.beat = sample.value.beat;
    ++ods.heard.samples;
  }
}

}  // namespace gatewait
