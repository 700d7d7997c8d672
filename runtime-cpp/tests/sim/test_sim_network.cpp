// The simulated network under the KAL sockets: connections, messages and ends of stream reach
// their peer exactly one link latency (plus a seeded jitter) later in virtual time, in order, and
// a waiting thread wakes at the instant of delivery.
#include "../kairos_catch.hpp"

#include <array>
#include <cstring>
#include <vector>

#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/socket.hpp>

using kairos::kal::Endpoint;
using kairos::kal::MonotonicClock;
using kairos::kal::Poller;
using kairos::kal::Socket;
using kairos::kal::Status;
using kairos::kal::TimePoint;
using kairos::kal::Transfer;
using kairos::kal::sim::LinkModel;
using namespace std::chrono_literals;

namespace {
Endpoint endpoint_of(const char* text) {
  Endpoint endpoint;
  REQUIRE(kairos::kal::parse_endpoint(text, endpoint));
  return endpoint;
}

std::span<const std::byte> bytes_of(const char* text) {
  return std::as_bytes(std::span(text, std::strlen(text)));
}

/// Listens on `text`, connects a client and accepts it: returns when the pair is connected.
void pair(const char* text, Transfer transfer, Socket& listener, Socket& client, Socket& server) {
  const Endpoint endpoint = endpoint_of(text);
  REQUIRE(listener.listen(endpoint, transfer) == Status::kOk);
  REQUIRE(client.connect(endpoint, MonotonicClock::now() + 1s, transfer) == Status::kOk);
  REQUIRE(listener.wait_readable(MonotonicClock::now() + 1s));
  REQUIRE(listener.accept(server) == Status::kOk);
}

std::int64_t since(TimePoint start) {
  return (MonotonicClock::now() - start).count();
}
}  // namespace

TEST_CASE("a connect to an endpoint nobody listens on is refused at once", "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({100us, 0us}, 1) == Status::kOk);
  const TimePoint start = MonotonicClock::now();
  Socket client;
  REQUIRE(client.connect(endpoint_of("uds:/sim/nobody"), start + 1s, Transfer::kMessages) ==
          Status::kPlatformError);
  REQUIRE(client.connect(endpoint_of("tcp:10.0.0.9:7000"), start + 1s) == Status::kPlatformError);
  REQUIRE(MonotonicClock::now() == start);
  REQUIRE_FALSE(client.is_open());
  REQUIRE(kairos::kal::sim::network_counters().refused_connects == 2);
  // TCP carries no messages, as on a real network.
  Socket listener;
  REQUIRE(listener.listen(endpoint_of("tcp:10.0.0.9:7000"), Transfer::kMessages) ==
          Status::kInvalidArgument);
  // One listener per endpoint.
  REQUIRE(listener.listen(endpoint_of("tcp:10.0.0.9:7000")) == Status::kOk);
  Socket second;
  REQUIRE(second.listen(endpoint_of("tcp:localhost:7000")) == Status::kOk);  // another host
  Socket third;
  REQUIRE(third.listen(endpoint_of("tcp:10.0.0.9:7000")) == Status::kPlatformError);
}

TEST_CASE("connections, messages and the end of stream arrive one latency later, exactly",
          "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({100us, 0us}, 1) == Status::kOk);
  const Endpoint endpoint = endpoint_of("uds:/sim/exact");
  Socket listener;
  REQUIRE(listener.listen(endpoint, Transfer::kMessages) == Status::kOk);
  Poller poller;
  REQUIRE(poller.add(listener, 42) == Status::kOk);
  const TimePoint start = MonotonicClock::now();
  Socket client;
  REQUIRE(client.connect(endpoint, start + 1s, Transfer::kMessages) == Status::kOk);
  REQUIRE(since(start) == 0);  // connecting takes no time: the caller may send at once
  REQUIRE(client.send(bytes_of("hello")) == 5);
  REQUIRE(client.send(bytes_of("cube 3")) == 6);

  Socket server;
  REQUIRE(listener.accept(server) == Status::kResourceExhausted);  // not there yet
  std::array<std::uint64_t, 4> ready{};
  REQUIRE(poller.wait(start + 1s, ready) == 1);
  REQUIRE(ready[0] == 42);
  REQUIRE(since(start) == 100'000);
  REQUIRE(listener.accept(server) == Status::kOk);

  // Both messages were sent at 0: both are there at 100 us, each whole.
  std::array<std::byte, 64> buffer{};
  REQUIRE(server.wait_readable(start + 1s));
  REQUIRE(since(start) == 100'000);
  REQUIRE(server.receive(buffer) == 5);
  REQUIRE(std::memcmp(buffer.data(), "hello", 5) == 0);
  REQUIRE(server.receive(std::span(buffer).first(4)) == 4);  // cut to the buffer, rest dropped
  REQUIRE(std::memcmp(buffer.data(), "cube", 4) == 0);
  REQUIRE(server.receive(buffer) == 0);

  // The answer: not there one nanosecond before the latency, there at it.
  REQUIRE(server.send(bytes_of("27")) == 2);
  kairos::kal::sleep_until(start + 199'999ns);
  REQUIRE(client.receive(buffer) == 0);
  REQUIRE_FALSE(client.wait_readable(start + 199'999ns));
  REQUIRE(client.wait_readable(start + 1s));
  REQUIRE(since(start) == 200'000);
  REQUIRE(client.receive(buffer) == 2);

  // Closing: the peer reads the end of stream one latency later; its sends fail from then.
  client.close();
  REQUIRE(server.send(bytes_of("late")) == 4);  // it does not know yet
  REQUIRE(server.receive(buffer) == 0);
  REQUIRE(server.wait_readable(start + 1s));
  REQUIRE(since(start) == 300'000);
  REQUIRE(server.receive(buffer) == -1);
  REQUIRE(server.send(bytes_of("later")) == -1);
}

TEST_CASE("a shut-down connection reads as closed here at once, and there one latency later",
          "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({100us, 0us}, 1) == Status::kOk);
  Socket listener;
  Socket client;
  Socket server;
  pair("tcp:10.0.0.1:7100", Transfer::kStream, listener, client, server);
  const TimePoint start = MonotonicClock::now();
  std::array<std::byte, 16> buffer{};
  server.shutdown();
  REQUIRE(server.wait_readable(start + 1s));
  REQUIRE(server.receive(buffer) == -1);
  REQUIRE(server.send(bytes_of("x")) == -1);
  REQUIRE(since(start) == 0);
  REQUIRE(client.wait_readable(start + 1s));
  REQUIRE(since(start) == 100'000);
  REQUIRE(client.receive(buffer) == -1);
}

TEST_CASE("a stream delivers bytes in order across sends and reads", "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({50us, 0us}, 1) == Status::kOk);
  Socket listener;
  Socket client;
  Socket server;
  pair("tcp:10.0.0.1:7101", Transfer::kStream, listener, client, server);
  REQUIRE(client.send(bytes_of("abc")) == 3);
  REQUIRE(client.send(bytes_of("defg")) == 4);
  REQUIRE(server.wait_readable(MonotonicClock::now() + 1s));
  std::array<std::byte, 5> buffer{};
  REQUIRE(server.receive(buffer) == 5);  // a stream may join sends
  REQUIRE(std::memcmp(buffer.data(), "abcde", 5) == 0);
  REQUIRE(server.receive(buffer) == 2);
  REQUIRE(std::memcmp(buffer.data(), "fg", 2) == 0);
}

namespace {
/// Sends 40 one-byte messages at one instant over a link with jitter; returns when each was
/// delivered, in nanoseconds after the send.
std::vector<std::int64_t> deliveries(std::uint64_t seed, const char* where) {
  REQUIRE(kairos::kal::sim::set_network({100us, 80us}, seed) == Status::kOk);
  Socket listener;
  Socket client;
  Socket server;
  pair(where, Transfer::kMessages, listener, client, server);
  const TimePoint start = MonotonicClock::now();
  for (std::uint8_t i = 0; i < 40; ++i) {
    const std::byte value{i};
    REQUIRE(client.send(std::span(&value, 1)) == 1);
  }
  std::vector<std::int64_t> times;
  for (std::uint8_t i = 0; i < 40; ++i) {
    REQUIRE(server.wait_readable(start + 1s));
    std::byte value{};
    REQUIRE(server.receive(std::span(&value, 1)) == 1);
    REQUIRE(std::to_integer<std::uint8_t>(value) == i);  // never overtaken
    times.push_back(since(start));
  }
  return times;
}
}  // namespace

TEST_CASE("jitter never reorders a connection, and the seed decides every delivery",
          "[sim][network][determinism]") {
  const auto first = deliveries(7, "uds:/sim/jitter-a");
  for (std::size_t i = 0; i < first.size(); ++i) {
    REQUIRE(first[i] >= 100'000);
    REQUIRE(first[i] <= 180'000);
    if (i > 0) {
      REQUIRE(first[i] >= first[i - 1]);
    }
  }
  REQUIRE(first.front() < first.back());  // the jitter did spread them
  REQUIRE(deliveries(7, "uds:/sim/jitter-b") == first);
  REQUIRE(deliveries(8, "uds:/sim/jitter-c") != first);
}

TEST_CASE("an endpoint on another network has its own link", "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({100us, 0us}, 1) == Status::kOk);
  REQUIRE(kairos::kal::sim::set_endpoint_link("tcp:10.1.0.1:7000", {2ms, 0us}) == Status::kOk);
  REQUIRE(kairos::kal::sim::set_endpoint_link("nonsense", {2ms, 0us}) == Status::kInvalidArgument);
  REQUIRE(kairos::kal::sim::set_endpoint_link("tcp:10.1.0.1:7000", {-1us, 0us}) ==
          Status::kInvalidArgument);
  Socket near_listener;
  Socket far_listener;
  REQUIRE(near_listener.listen(endpoint_of("tcp:10.0.0.1:7000")) == Status::kOk);
  REQUIRE(far_listener.listen(endpoint_of("tcp:10.1.0.1:7000")) == Status::kOk);
  Poller poller;
  REQUIRE(poller.add(near_listener, 1) == Status::kOk);
  REQUIRE(poller.add(far_listener, 2) == Status::kOk);
  const TimePoint start = MonotonicClock::now();
  Socket far_client;
  Socket near_client;
  REQUIRE(far_client.connect(endpoint_of("tcp:10.1.0.1:7000"), start + 1s) == Status::kOk);
  REQUIRE(near_client.connect(endpoint_of("tcp:10.0.0.1:7000"), start + 1s) == Status::kOk);
  std::array<std::uint64_t, 4> ready{};
  REQUIRE(poller.wait(start + 1s, ready) == 1);
  REQUIRE(ready[0] == 1);
  REQUIRE(since(start) == 100'000);
  Socket near_server;
  REQUIRE(near_listener.accept(near_server) == Status::kOk);
  REQUIRE(poller.wait(start + 1s, ready) == 1);
  REQUIRE(ready[0] == 2);
  REQUIRE(since(start) == 2'000'000);
  // A poller's deadline holds when nothing comes.
  Poller idle;
  Socket far_server;
  REQUIRE(far_listener.accept(far_server) == Status::kOk);
  REQUIRE(idle.add(far_server, 3) == Status::kOk);
  REQUIRE(idle.wait(start + 2'500us, ready) == 0);
  REQUIRE(since(start) == 2'500'000);
}

TEST_CASE("a link of limited bandwidth delays each message by its serialisation, in turn",
          "[sim][network]") {
  // 8 Mbps: one byte a microsecond on the wire.
  REQUIRE(kairos::kal::sim::set_network(
              {.latency = 100us, .jitter = 0us, .bits_per_second = 8'000'000}, 1) == Status::kOk);
  REQUIRE(kairos::kal::sim::set_network({.latency = 100us, .bits_per_second = -1}, 1) ==
          Status::kInvalidArgument);
  Socket listener;
  Socket client;
  Socket server;
  pair("uds:/sim/bandwidth", Transfer::kMessages, listener, client, server);
  const TimePoint start = MonotonicClock::now();
  std::array<std::byte, 300> payload{};
  // Sent together, the second waits for the first to leave: 100 + 100 us, then 200 + 100 us.
  REQUIRE(client.send(std::span(payload).first(100)) == 100);
  REQUIRE(client.send(std::span(payload).first(100)) == 100);
  std::array<std::byte, 300> buffer{};
  REQUIRE(server.wait_readable(start + 1s));
  REQUIRE(since(start) == 200'000);
  REQUIRE(server.receive(buffer) == 100);
  REQUIRE(server.receive(buffer) == 0);
  REQUIRE(server.wait_readable(start + 1s));
  REQUIRE(since(start) == 300'000);
  REQUIRE(server.receive(buffer) == 100);
  // The wire is free again: a message sent later leaves at once; the other way has its own wire.
  kairos::kal::sleep_until(start + 1ms);
  REQUIRE(client.send(std::span(payload).first(3)) == 3);
  REQUIRE(server.send(std::span(payload)) == 300);
  REQUIRE(server.wait_readable(start + 2ms));
  REQUIRE(since(start) == 1'103'000);
  REQUIRE(client.wait_readable(start + 2ms));
  REQUIRE(since(start) == 1'400'000);
}

TEST_CASE("datagrams reach whoever listens, one latency later; with nobody there they are lost",
          "[sim][network]") {
  REQUIRE(kairos::kal::sim::set_network({100us, 0us}, 1) == Status::kOk);
  const Endpoint endpoint = endpoint_of("udp:10.0.0.1:9000");
  Socket sender;
  REQUIRE(sender.connect(endpoint, MonotonicClock::now() + 1s) == Status::kOk);
  REQUIRE(sender.send(bytes_of("lost")) == 4);
  REQUIRE(kairos::kal::sim::network_counters().dropped == 1);
  Socket receiver;
  REQUIRE(receiver.listen(endpoint) == Status::kOk);
  const TimePoint start = MonotonicClock::now();
  REQUIRE(sender.send(bytes_of("one")) == 3);
  REQUIRE(sender.send(bytes_of("two!")) == 4);
  std::array<std::byte, 16> buffer{};
  REQUIRE(receiver.wait_readable(start + 1s));
  REQUIRE(since(start) == 100'000);
  REQUIRE(receiver.receive(buffer) == 3);
  REQUIRE(receiver.receive(buffer) == 4);
  REQUIRE(receiver.receive(buffer) == 0);
  REQUIRE(kairos::kal::sim::network_counters().messages == 2);
}
