// hello/Greeter.cpp — method bodies of TMO Greeter (hello.tmo).
#include "hello/Greeter.hpp"

namespace hello {

void Greeter::tick() {
  // A little deterministic work, far below the 1 ms WCET the model promises.
  ::std::uint64_t value = ods_.counters.ticks + 1;
  for (int round = 0; round < 1000; ++round) {
    value = value * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  checksum_ ^= value;
  ++ods_.counters.ticks;
}

::std::uint64_t Greeter::greetings(::std::uint32_t extra) {
  ods_.counters.greeted += extra;
  return ods_.counters.greeted;
}

}  // namespace hello
