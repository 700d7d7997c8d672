// hello/Greeter.hpp — method bodies of TMO Greeter (hello.tmo).
#pragma once

#include <cstdint>

#include "hello/Greeter.base.hpp"

namespace hello {

class Greeter final : public GreeterBase {
 private:
  // Called by the engine through GreeterBase's private entry points, which lend each method the
  // segments it uses: `tick` may write counters, `greetings` only read them.
  void tick(TickAccess ods) override;
  ::std::uint64_t greetings(GreetingsAccess ods, ::std::uint32_t extra) override;

  ::std::uint64_t checksum_ = 0;
};

}  // namespace hello
