// calls/Server.cpp — method bodies of TMO Server (calls.tmo).
#include "calls/Server.hpp"

namespace calls {

::kairos::orb::Reply<::std::uint32_t, ::calls::Missing> Server::get(GetAccess ods,
                                                                    ::std::uint8_t key,
                                                                    ::std::uint32_t& version) {
  // Key 5 is not stored: the caller learns it from the declared exception, which names the key.
  if (key == 5) {
    return Missing{key};
  }
  // The cube of the key (plus the stored value, always 0 here), and the key + 1 as its version:
  // the caller checks both, so a reply is known to be the answer to its own request.
  version = key + 1U;
  return ods.values.value + static_cast<::std::uint32_t>(key) * key * key;
}

}  // namespace calls
