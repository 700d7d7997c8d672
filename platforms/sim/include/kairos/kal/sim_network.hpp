// The simulated network behind the sim platform's sockets: every endpoint (uds:, tcp:, udp: and
// any other a model names) lives in one process-wide registry, and a message sent on a
// connection reaches its peer after its serialisation at the link's bandwidth, the link's
// latency and a jitter drawn from a seeded generator, in virtual time. A later message never
// overtakes an earlier one on a connection: it is delivered at max(previous delivery, leaves +
// latency + jitter), where it leaves once the messages sent before it on the connection have
// left and its own bytes are on the wire. The same program with the same seed gives the same
// delivery times to the nanosecond.
//
// Sim-only, like sim_kernel.hpp: a real network is what it is, so Linux has no such call, and
// code that sets a link model is a simulation by construction.
#pragma once

#include <cstdint>
#include <string_view>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>

namespace kairos::kal::sim {

/// One direction of a link: a message of n bytes sent at t is delivered at t + n x 8 /
/// bits_per_second (its serialisation) + latency + a jitter drawn uniformly from [0, jitter],
/// then held back behind the previous message of its connection. Serialisation queues: a message
/// starts onto the wire once the one its socket sent before has left. Each connection (and each
/// sending datagram socket) has the bandwidth to itself: connections do not share a link.
struct LinkModel {
  Duration latency{0};
  Duration jitter{0};
  std::int64_t bits_per_second = 0;  ///< 0: unlimited (no serialisation time)
};

/// The most endpoints that can have a link of their own (set_endpoint_link).
inline constexpr int kMaxEndpointLinks = 16;

/// Sets the link of every connection opened from now on (latency 0 and jitter 0 until called),
/// forgets every endpoint's own link, and restarts the jitter generator from `seed`: a run that
/// begins with this call draws the same jitters every time. kInvalidArgument for a negative
/// latency, jitter or bandwidth.
Status set_network(const LinkModel& link, std::uint64_t seed) noexcept;

/// Gives connections to `endpoint` (as a model writes it) a link of their own, both ways: the
/// node listening there sits on another network than the rest. Applies to connections opened
/// from now on. kInvalidArgument if the endpoint does not parse or a figure of the link is
/// negative, kCapacityExceeded beyond kMaxEndpointLinks endpoints.
Status set_endpoint_link(std::string_view endpoint, const LinkModel& link) noexcept;

/// What the simulated network has carried since set_network (for tests and what-if runs).
struct NetworkCounters {
  std::uint64_t messages = 0;  ///< sends accepted onto a link (datagrams included)
  std::uint64_t bytes = 0;
  std::uint64_t refused_connects = 0;  ///< connects to an endpoint nobody listens on
  std::uint64_t dropped = 0;           ///< sends lost: no receiver, or it had closed
};
NetworkCounters network_counters() noexcept;

}  // namespace kairos::kal::sim
