// cell/ProbeTMO.cpp — method bodies of TMO ProbeTMO (cell.tmo).
#include "cell/ProbeTMO.hpp"

#include <kairos/kal/clock.hpp>

namespace cell {

void ProbeTMO::sample(SampleAccess ods) {
  // Stand-in for reading a gauge: a slowly varying value stamped with the monotonic clock.
  ++ods.last.count;
  ods.last.sample.stamp_ns = static_cast<::std::uint64_t>(
      ::kairos::kal::to_nanoseconds(::kairos::kal::MonotonicClock::now()));
  ods.last.sample.value = 20.0 + static_cast<double>(ods.last.count % 100) * 0.01;
}

::cell::Sample ProbeTMO::latest(LatestAccess ods) {
  return ods.last.sample;
}

}  // namespace cell
