// hello/Greeter.cpp — method bodies of TMO Greeter.
#include "hello/Greeter.hpp"

namespace hello {

// spm tick: every 100 ms from 0 s, start-during (t, t + 5 ms), finish-by t + 50 ms, wcet 1 ms, hard
void Greeter::tick(TickAccess /*ods*/) {
  // Runs once per release; must finish within its WCET.
  // Its segments come in `ods` (uses counters write): name the parameter to use them.
}

// svm greetings: gct 5 ms, wcet 100 us, soft, max-rate 10 Hz
::std::uint64_t Greeter::greetings(GreetingsAccess /*ods*/, ::std::uint32_t /*extra*/) {
  // Serves one request; must finish within its GCT.
  // Its segments come in `ods` (uses counters read): name the parameter to use them.
  return {};
}

}  // namespace hello
