// rates/Server.cpp — method bodies of TMO Server (rates.tmo).
#include "rates/Server.hpp"

#include <chrono>

#include <kairos/kal/execution.hpp>

namespace rates {

::std::uint32_t Server::bump(BumpAccess ods, ::std::uint32_t by) {
  // On sim the engine computes the row's 4 ms; on Linux the body computes 3 of them itself.
  if (!::kairos::kal::kSimulatedTime) {
    ::kairos::kal::busy_for(::std::chrono::milliseconds{3});
  }
  ods.total.value += by;
  return ods.total.value;
}

}  // namespace rates
