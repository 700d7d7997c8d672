// calls/Client.hpp — method bodies of TMO Client (calls.tmo).
#pragma once

#include <cstdint>

#include "calls/Client.base.hpp"

namespace calls {

class Client final : public ClientBase {
 private:
  void poll(PollAccess ods, PollGates gates) override;

  ::kairos::orb::PendingCall pending_{};  ///< the non-blocking call the last activation started
  ::std::uint8_t pending_key_ = 0;
  ::std::uint32_t wrong_ = 0;  ///< answers that were not the cube of their key
};

}  // namespace calls
