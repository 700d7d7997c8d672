// calls/Server.hpp — method bodies of TMO Server (calls.tmo).
#pragma once

#include "calls/Server.base.hpp"

namespace calls {

class Server final : public ServerBase {
 private:
  ::kairos::orb::Reply<::std::uint32_t, ::calls::Missing> get(GetAccess ods, ::std::uint8_t key,
                                                              ::std::uint32_t& version) override;
};

}  // namespace calls
