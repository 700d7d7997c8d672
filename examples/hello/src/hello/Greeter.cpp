// hello/Greeter.cpp — method bodies of TMO Greeter (hello.tmo).
#include "hello/Greeter.hpp"

namespace hello {

void Greeter::tick(TickAccess ods) {
  // A little deterministic work, far below the 1 ms WCET the model promises; then one greeting.
  ::std::uint64_t value = ods.counters.ticks + 1;
  for (int round = 0; round < 1000; ++round) {
    value = value * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  checksum_ ^= value;
  ++ods.counters.ticks;
  ++ods.counters.greeted;
}

::std::uint64_t Greeter::greetings(GreetingsAccess ods, ::std::uint32_t extra) {
  // `uses counters read`: the counters are const here, so this can only report them.
  return ods.counters.greeted + extra;
}

}  // namespace hello
