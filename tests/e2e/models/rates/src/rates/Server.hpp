// rates/Server.hpp — method bodies of TMO Server (rates.tmo).
#pragma once

#include "rates/Server.base.hpp"

namespace rates {

class Server final : public ServerBase {
 private:
  // Called by the engine through ServerBase's private entry points, which lend each method the
  // segments it uses.
  ::std::uint32_t bump(BumpAccess ods, ::std::uint32_t by) override;
};

}  // namespace rates
