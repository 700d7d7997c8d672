// hello/Greeter.hpp — method bodies of TMO Greeter (hello.tmo:9).
// Written once by kairos as a starting point; yours to edit. Never overwritten.
#pragma once

#include "hello/Greeter.base.hpp"

namespace hello {

class Greeter final : public GreeterBase {
 private:
  // Called by the engine through GreeterBase's private entry points, which lend each method the
  // segments it uses.
  void tick(TickAccess ods) override;
  ::std::uint64_t greetings(GreetingsAccess ods, ::std::uint32_t extra) override;
};

}  // namespace hello
