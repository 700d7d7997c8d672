// gatewait/Client.cpp — method bodies of TMO Client (gatewait.tmo).
#include "gatewait/Client.hpp"

namespace gatewait {

void Client::work(WorkAccess ods, WorkGates gates) {
  // Blocking: the lane waits for the reply (at most the gate's 5 ms), then the method computes
  // for its modelled 1 ms. The wait is no processor time: lower bands and the hub run meanwhile.
  const auto answer = gates.server.get(7);
  if (answer.ok()) {
    ++ods.seen.answers;
    ods.seen.last = answer.value();
  }
}

}  // namespace gatewait
