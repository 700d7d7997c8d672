// rates/Cruncher.cpp — method bodies of TMO Cruncher (rates.tmo).
#include "rates/Cruncher.hpp"

#include <chrono>

#include <kairos/kal/execution.hpp>

namespace rates {

void Cruncher::crunch(CrunchAccess ods) {
  // On sim the engine computes the row's 14 ms; on Linux the body computes 12 of them itself.
  if (!::kairos::kal::kSimulatedTime) {
    ::kairos::kal::busy_for(::std::chrono::milliseconds{12});
  }
  ++ods.work.rounds;
}

}  // namespace rates
