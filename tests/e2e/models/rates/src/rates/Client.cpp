// rates/Client.cpp — method bodies of TMO Client (rates.tmo).
#include "rates/Client.hpp"

#include <cstdio>

namespace rates {

void Client::flood(FloodAccess ods, FloodGates gates) {
  // Collect the calls that ended, then start one more: every 4 ms, five times bump's max-rate.
  for (auto& call : pending_) {
    if (!call.in_flight()) {
      continue;
    }
    const auto outcome = gates.counter.poll(call);
    if (call.in_flight()) {
      continue;
    }
    if (outcome.ok()) {
      ++answered_;
    } else if (outcome.status() == ::kairos::orb::CallStatus::kRateExceeded) {
      ++over_rate_;
    } else {
      ++other_;
    }
  }
  for (auto& call : pending_) {
    if (!call.in_flight()) {
      call = gates.counter.bump(1);
      ++ods.tally.sent;
      break;
    }
  }
}

Client::~Client() {
  ::std::printf("client calls answered=%u over_rate=%u other=%u\n", answered_, over_rate_, other_);
}

}  // namespace rates
