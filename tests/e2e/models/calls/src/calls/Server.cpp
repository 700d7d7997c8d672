// calls/Server.cpp — method bodies of TMO Server (calls.tmo).
#include "calls/Server.hpp"

namespace calls {

::std::uint32_t Server::get(GetAccess ods, ::std::uint8_t key, ::std::uint32_t& version) {
  // The cube of the key (plus the stored value, always 0 here), and the key + 1 as its version:
  // the caller checks both, so a reply is known to be the answer to its own request.
  version = key + 1U;
  return ods.values.value + static_cast<::std::uint32_t>(key) * key * key;
}

}  // namespace calls
