// RMMC channels between two nodes on the simulated network, with exact virtual times: node A (the
// test's thread, on processor 0, with its hub below it) publishes; node B's hub (processor 1)
// receives one link latency later and hands each sample to B's readers. Nothing on the way takes
// virtual time but the link, so a sample published at t is readable at t + latency (+ jitter).
#include "../kairos_catch.hpp"

#include <array>
#include <cstring>

#include <kairos/channel/channel.hpp>
#include <kairos/channel/hub.hpp>
#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/thread.hpp>

#include "../channel_payload.hpp"

using channel_payload::Fix;
using kairos::channel::ChannelSpec;
using kairos::channel::Sample;
using kairos::kal::Duration;
using kairos::kal::MonotonicClock;
using kairos::kal::Status;
using kairos::kal::TimePoint;
using namespace std::chrono_literals;

namespace {

constexpr Duration kLatency = 100us;
constexpr const char* kEndpointB = "udp:10.0.1.2:7400";

using Track = kairos::channel::NodeChannel<Fix, 2, 1, 2>;

/// One node's side of the channel: its hub, its publisher and readers.
struct Node {
  Track channel;
  kairos::channel::ChannelHub hub;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  Track::ReaderType second_reader;

  Node(const ChannelSpec& spec, const char* name, int cpu)
      : channel{spec}, hub{kairos::channel::HubOptions{.node = name, .cpu = cpu}} {
    REQUIRE(hub.add_channel(channel.port()) == Status::kOk);
  }
};

/// Node A publishes on processor 0, node B reads on processor 1 with two readers.
struct TwoNodes {
  Node a;
  Node b;

  explicit TwoNodes(const ChannelSpec& spec, Duration jitter = 0ns, std::uint64_t seed = 1)
      : a{spec, "a", 0}, b{spec, "b", 1} {
    REQUIRE(kairos::kal::provision_processors(2) == Status::kOk);
    REQUIRE(kairos::kal::sim::set_network({kLatency, jitter}, seed) == Status::kOk);
    REQUIRE(a.channel.attach(a.publisher, a.hub.wake()));
    REQUIRE(b.channel.attach(b.reader, b.hub.wake()));
    REQUIRE(b.channel.attach(b.second_reader, b.hub.wake()));
    REQUIRE(b.hub.listen(kEndpointB) == Status::kOk);
    REQUIRE(a.hub.add_subscriber(spec.id, kEndpointB) == Status::kOk);
    REQUIRE(b.hub.start() == Status::kOk);
    REQUIRE(a.hub.start() == Status::kOk);
  }
  ~TwoNodes() {
    a.hub.stop();
    b.hub.stop();
  }
};

Fix fix(std::uint32_t seq) {
  return Fix{seq, 48.0 + seq, {}};
}

}  // namespace

TEST_CASE("a sample published on one node is readable on another one link latency later",
          "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, {}, 2);
  TwoNodes nodes{spec};
  const TimePoint start = MonotonicClock::now();
  Fix value = fix(1);
  value.label.assign("north");
  REQUIRE(nodes.a.publisher.publish(value));
  REQUIRE(MonotonicClock::now() == start);  // publishing never waits
  kairos::kal::sleep_until(start + kLatency - 1ns);
  REQUIRE(nodes.b.reader.waiting() == 0);
  kairos::kal::sleep_until(start + kLatency + 1ns);
  Sample<Fix> taken;
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value == value);
  REQUIRE(taken.publish_ns == kairos::kal::to_nanoseconds(start));
  // Fan-out: the second reader of node B has its own copy.
  REQUIRE(nodes.b.second_reader.take(taken));
  REQUIRE(taken.value == value);
  REQUIRE(nodes.a.channel.counts().published == 1);
  REQUIRE(nodes.b.channel.counts().delivered == 2);
  // Each reader's copy was delivered one link latency after its publication, exactly.
  REQUIRE(nodes.b.channel.counters().delivery.count() == 2);
  REQUIRE(nodes.b.channel.counts().delivery_max_ns == 100'000);
  REQUIRE(nodes.b.channel.counts().delivery_p50_ns == 100'000);
  REQUIRE(nodes.a.channel.counters().delivery.count() == 0);
  REQUIRE(nodes.a.hub.counts().sent == 1);
  REQUIRE(nodes.b.hub.counts().received == 1);
}

TEST_CASE("jitter delays a sample by a seeded amount within the link's bound, the same each run",
          "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, {}, 2);
  std::array<std::int64_t, 2> arrival{};
  for (std::int64_t& at : arrival) {
    TwoNodes nodes{spec, 50us, 7};
    const TimePoint start = MonotonicClock::now();
    REQUIRE(nodes.a.publisher.publish(fix(1)));
    Sample<Fix> taken;
    // Look every microsecond, bounded by the link's worst case.
    for (Duration waited = 0us; waited <= kLatency + 50us && at == 0; waited += 1us) {
      kairos::kal::sleep_until(start + waited);
      if (nodes.b.reader.take(taken)) {
        at = (MonotonicClock::now() - start).count();
      }
    }
  }
  REQUIRE(arrival[0] >= 100'000);
  REQUIRE(arrival[0] <= 151'000);
  REQUIRE(arrival[0] == arrival[1]);
}

TEST_CASE("a sample whose validity ends before it arrives is dropped and counted",
          "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, 50us, 2);
  TwoNodes nodes{spec};
  const TimePoint start = MonotonicClock::now();
  REQUIRE(nodes.a.publisher.publish(fix(1)));
  kairos::kal::sleep_until(start + 2 * kLatency);
  Sample<Fix> taken;
  REQUIRE_FALSE(nodes.b.reader.take(taken));
  REQUIRE(nodes.a.channel.counts().published == 1);
  REQUIRE(nodes.b.channel.counts().delivered == 0);
  REQUIRE(nodes.b.channel.counts().dropped_late == 2);  // once per reader
}

TEST_CASE("a sample valid on arrival but read after its validity is dropped then",
          "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, 150us, 2);
  TwoNodes nodes{spec};
  const TimePoint start = MonotonicClock::now();
  REQUIRE(nodes.a.publisher.publish(fix(1)));
  kairos::kal::sleep_until(start + 150us);
  Sample<Fix> taken;
  REQUIRE(nodes.b.reader.take(taken));  // exactly at its validity: still valid
  kairos::kal::sleep_until(start + 151us);
  REQUIRE_FALSE(nodes.b.second_reader.take(taken));
  REQUIRE(nodes.b.channel.counts().delivered == 2);
  REQUIRE(nodes.b.channel.counts().dropped_late == 1);
}

TEST_CASE("a reader keeps the newest depth samples of a burst", "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, {}, 2);
  TwoNodes nodes{spec};
  const TimePoint start = MonotonicClock::now();
  for (std::uint32_t seq = 1; seq <= 3; ++seq) {
    REQUIRE(nodes.a.publisher.publish(fix(seq)));
  }
  kairos::kal::sleep_until(start + kLatency + 1ns);
  Sample<Fix> taken;
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value.seq == 2);
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value.seq == 3);
  REQUIRE_FALSE(nodes.b.reader.take(taken));
  REQUIRE(nodes.b.channel.counts().delivered == 6);
  REQUIRE(nodes.b.channel.counts().dropped_overflow == 1);  // the first reader's seq 1
  // A flood of samples the reader does not take meanwhile: it still finds the newest two.
  for (std::uint32_t seq = 4; seq < 20; ++seq) {
    nodes.a.publisher.publish(fix(seq));
    kairos::kal::sleep_until(MonotonicClock::now() + 1us);
  }
  kairos::kal::sleep_until(MonotonicClock::now() + 2 * kLatency);
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value.seq == 18);
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value.seq == 19);
  REQUIRE_FALSE(nodes.b.reader.take(taken));
  REQUIRE(nodes.a.channel.counts().published == 19);
  REQUIRE(nodes.b.channel.counts().delivered == 2 * 19);
  REQUIRE(nodes.b.channel.counts().dropped_overflow == 1 + 14);
}

TEST_CASE("a malformed datagram on the channel endpoint is counted and ignored", "[sim][channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(4, 2, {}, 2);
  TwoNodes nodes{spec};
  kairos::kal::Endpoint endpoint;
  REQUIRE(kairos::kal::parse_endpoint(kEndpointB, endpoint));
  kairos::kal::Socket rogue;
  REQUIRE(rogue.connect(endpoint, MonotonicClock::now()) == Status::kOk);
  const TimePoint start = MonotonicClock::now();
  const char garbage[] = "not a sample at all";
  REQUIRE(rogue.send(std::as_bytes(std::span(garbage))) == sizeof garbage);
  // A good header naming a channel B does not have, and one with a truncated body.
  std::array<std::byte, kairos::channel::kSampleHeaderSize + 2> unknown{};
  kairos::channel::write_sample_header(unknown, 99, 0);
  REQUIRE(rogue.send(unknown) == static_cast<std::int64_t>(unknown.size()));
  kairos::channel::write_sample_header(unknown, 4, 0);
  REQUIRE(rogue.send(unknown) == static_cast<std::int64_t>(unknown.size()));
  kairos::kal::sleep_until(start + kLatency + 1ns);
  REQUIRE(nodes.b.hub.counts().malformed == 3);
  REQUIRE(nodes.b.channel.counts().delivered == 0);
  // The channel still works.
  REQUIRE(nodes.a.publisher.publish(fix(5)));
  kairos::kal::sleep_until(MonotonicClock::now() + kLatency + 1ns);
  Sample<Fix> taken;
  REQUIRE(nodes.b.reader.take(taken));
  REQUIRE(taken.value.seq == 5);
}
