// calls/Server.hpp — method bodies of TMO Server (calls.tmo).
#pragma once

#include "calls/Server.base.hpp"

namespace calls {

class Server final : public ServerBase {
 private:
  ::std::uint32_t get(GetAccess ods, ::std::uint8_t key, ::std::uint32_t& version) override;
};

}  // namespace calls
