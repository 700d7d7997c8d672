// rates/Client.hpp — method bodies of TMO Client (rates.tmo).
#pragma once

#include <array>
#include <cstdint>

#include "rates/Client.base.hpp"

namespace rates {

class Client final : public ClientBase {
 public:
  /// Prints how the calls ended, once, when the node ends. (`final`, not `override`: kairos
  /// generate reads `Name(...) override` in this header as a modelled method.)
  ~Client() final;

 private:
  void flood(FloodAccess ods, FloodGates gates) override;

  /// The non-blocking calls in flight: a route holds four at most.
  std::array<::kairos::orb::PendingCall, 4> pending_{};
  ::std::uint32_t answered_ = 0;
  ::std::uint32_t over_rate_ = 0;  ///< refused by the server: beyond bump's max-rate
  ::std::uint32_t other_ = 0;      ///< ended otherwise (late, busy, disconnected)
};

}  // namespace rates
