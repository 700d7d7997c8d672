// What the programs that run the Kairos ORB under the cubit benchmark share (the `kairos` stack
// of kairos_bench_cubit, mt_cubit and inversion): where a serving node listens, and when it may
// leave.
#pragma once

#include <string>

#include <kairos/orb/orb.hpp>

#include "stack.hpp"

namespace cubit {

/// Listens on a Unix socket in the run's directory, or on a free TCP port of loopback;
/// `endpoint` receives the ORB endpoint (uds:/path, tcp:127.0.0.1:port). False on failure.
bool listen_orb(kairos::orb::Orb& orb, Family family, const ServeContext& context,
                std::string& endpoint);

/// Waits until every client that connected has gone (0), or the driver died or no client came
/// within a minute (3).
int wait_for_client_to_leave(const kairos::orb::Orb& orb);

}  // namespace cubit
