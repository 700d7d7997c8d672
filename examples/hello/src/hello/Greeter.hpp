// hello/Greeter.hpp — method bodies of TMO Greeter (hello.tmo).
#pragma once

#include <cstdint>

#include "hello/Greeter.base.hpp"

namespace hello {

class Greeter final : public GreeterBase {
 public:
  void tick() override;
  ::std::uint64_t greetings(::std::uint32_t extra) override;

 private:
  ::std::uint64_t checksum_ = 0;
};

}  // namespace hello
