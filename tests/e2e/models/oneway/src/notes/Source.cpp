// notes/Source.cpp — method bodies of TMO Source (oneway.tmo).
#include "notes/Source.hpp"

#include <cstdio>

namespace notes {

void Source::tick(TickAccess ods, TickGates gates) {
  // One datagram, never waited for: the call is over once it is sent.
  const auto sent = gates.recorder.note(++ods.state.seq);
  if (sent != ::kairos::orb::CallStatus::kOk && !warned_) {
    ::std::printf("source: a note was not sent: %s\n", ::kairos::orb::to_string(sent));
    warned_ = true;
  }
}

}  // namespace notes
