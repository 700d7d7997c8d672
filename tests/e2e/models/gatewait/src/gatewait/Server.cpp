// gatewait/Server.cpp — method bodies of TMO Server (gatewait.tmo).
#include "gatewait/Server.hpp"

namespace gatewait {

void Server::beat(BeatAccess ods, BeatChannels channels) {
  ++ods.values.beats;
  channels.status.publish(Status{ods.values.beats});
}

::std::uint32_t Server::get(GetAccess ods, ::std::uint8_t key) {
  return ods.values.value + key;
}

}  // namespace gatewait
