// gatewait/Server.hpp — method bodies of TMO Server (gatewait.tmo).
#pragma once

#include "gatewait/Server.base.hpp"

namespace gatewait {

class Server final : public ServerBase {
 private:
  // Called by the engine through ServerBase's private entry points, which lend each method the
  // segments it uses.
  void beat(BeatAccess ods, BeatChannels channels) override;
  ::std::uint32_t get(GetAccess ods, ::std::uint8_t key) override;
};

}  // namespace gatewait
