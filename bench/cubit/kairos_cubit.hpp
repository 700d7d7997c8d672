// What the programs that run the Kairos ORB under the cubit benchmark share (the `kairos` stack
// of kairos_bench_cubit, mt_cubit and inversion): where a serving node listens, and when it may
// leave.
#pragma once

#include <string>

#include <kairos/orb/orb.hpp>

#include "stack.hpp"

namespace cubit {

/// Listens on a Unix socket in the run's directory, or on a free TCP port of loopback;
/// `endpoint` receives the ORB endpoint (uds:/path, tcp:127.0.0.1:port); `authenticate`: TLS
/// (the ORB's identity loaded). False on failure.
bool listen_orb(kairos::orb::Orb& orb, Family family, const ServeContext& context,
                std::string& endpoint, bool authenticate = false);

/// Starts a serving node's ORB and announces `endpoint`. Works around a fault of the runtime:
/// a band's reader that has no connection yet spins (its poller has no epoll instance before
/// its first connection, and its wait returns at once) at its band's real-time priority, so on
/// a CPU it shares with the ORB's acceptor (at the lowest band) no client is ever taken in.
/// Until the runtime fixes that, the ORB is started from a thread at the top real-time priority
/// but one and the acceptor is put there too: connections are taken in at once, and each reader
/// stops spinning at its first. (The acceptor has nothing to do once the clients are in.)
bool start_serving(kairos::orb::Orb& orb, const ServeContext& context, const std::string& endpoint);

/// Waits until every client that connected has gone (0), or the driver died or no client came
/// within a minute (3).
int wait_for_client_to_leave(const kairos::orb::Orb& orb);

}  // namespace cubit
