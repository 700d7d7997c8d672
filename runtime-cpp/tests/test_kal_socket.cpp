#include <catch2/catch.hpp>

#include <unistd.h>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include <kairos/kal/socket.hpp>

using kairos::kal::Endpoint;
using kairos::kal::MonotonicClock;
using kairos::kal::Socket;
using kairos::kal::Status;
using namespace std::chrono_literals;

TEST_CASE("endpoints parse as a model writes them", "[unit][kal][socket]") {
  Endpoint e;
  REQUIRE(kairos::kal::parse_endpoint("tcp:127.0.0.1:7001", e));
  REQUIRE((e.kind == Endpoint::Kind::kTcp && e.port == 7001));
  REQUIRE(std::string(e.address) == "127.0.0.1");
  REQUIRE(kairos::kal::parse_endpoint("uds:/tmp/kairos-x", e));
  REQUIRE(e.kind == Endpoint::Kind::kUnix);
  REQUIRE(kairos::kal::parse_endpoint("udp:localhost:9", e));
  for (const char* bad : {"tcp:1.2.3.4", "tcp::80", "tcp:h:0", "tcp:h:70000", "uds:relative",
                          "ftp:h:1", "", "tcp:h:12x"}) {
    REQUIRE_FALSE(kairos::kal::parse_endpoint(bad, e));
  }
}

namespace {
/// A UDP endpoint on loopback, at a port of this process's own: `base` plus its pid's share.
Endpoint loopback_udp(int base) {
  Endpoint endpoint;
  REQUIRE(kairos::kal::parse_endpoint("udp:127.0.0.1:" + std::to_string(base + getpid() % 20000),
                                      endpoint));
  return endpoint;
}

void exchange(const std::string& text) {
  Endpoint endpoint;
  REQUIRE(kairos::kal::parse_endpoint(text, endpoint));
  Socket server;
  REQUIRE(server.listen(endpoint) == Status::kOk);
  kairos::kal::Poller poller;
  REQUIRE(poller.add(server, 1) == Status::kOk);
  Socket client;
  REQUIRE(client.connect(endpoint, MonotonicClock::now() + 2s) == Status::kOk);
  std::array<std::uint64_t, 4> ready{};
  REQUIRE(poller.wait(MonotonicClock::now() + 2s, ready) == 1);
  REQUIRE(ready[0] == 1);
  Socket connection;
  REQUIRE(server.accept(connection) == Status::kOk);

  const char message[] = "cube 3";
  REQUIRE(client.send(std::as_bytes(std::span(message))) == sizeof message);
  kairos::kal::Poller readable;
  REQUIRE(readable.add(connection, 7) == Status::kOk);
  REQUIRE(readable.wait(MonotonicClock::now() + 2s, ready) == 1);
  std::array<std::byte, 64> buffer{};
  REQUIRE(connection.receive(buffer) == sizeof message);
  REQUIRE(std::memcmp(buffer.data(), message, sizeof message) == 0);

  client.close();
  REQUIRE(readable.wait(MonotonicClock::now() + 2s, ready) == 1);
  REQUIRE(connection.receive(buffer) == -1);  // the peer closed
}
}  // namespace

TEST_CASE("stream sockets connect, poll and exchange bytes on loopback",
          "[integration][kal][socket]") {
  exchange("tcp:127.0.0.1:" + std::to_string(20000 + getpid() % 20000));
  exchange("uds:/tmp/kairos-test-" + std::to_string(getpid()));
  ::unlink(("/tmp/kairos-test-" + std::to_string(getpid())).c_str());
}

TEST_CASE("an endpoint another socket listens on is refused as in use, a stale one is taken",
          "[integration][kal][socket]") {
  for (const std::string& text : {"tcp:127.0.0.1:" + std::to_string(21000 + getpid() % 20000),
                                  "uds:/tmp/kairos-test-in-use-" + std::to_string(getpid())}) {
    INFO(text);
    Endpoint endpoint;
    REQUIRE(kairos::kal::parse_endpoint(text, endpoint));
    Socket first;
    REQUIRE(first.listen(endpoint) == Status::kOk);
    // A second listener would take the endpoint over (a Unix socket's file is replaced, and the
    // first node would serve nothing more) or fail: refused, saying why.
    Socket second;
    REQUIRE(second.listen(endpoint) == Status::kAddressInUse);
    Socket client;
    REQUIRE(client.connect(endpoint, MonotonicClock::now() + 2s) == Status::kOk);
    first.close();
    // Nobody listens any more: the port, or the socket file the first left behind, is free.
    Socket again;
    REQUIRE(again.listen(endpoint) == Status::kOk);
  }
  ::unlink(("/tmp/kairos-test-in-use-" + std::to_string(getpid())).c_str());
}

TEST_CASE("a UDP port is bound once, and its datagrams arrive whole, one per receive",
          "[integration][kal][socket]") {
  const Endpoint endpoint = loopback_udp(30000);
  Socket server;
  REQUIRE(server.listen(endpoint, kairos::kal::Transfer::kMessages) == Status::kOk);
  // A second socket on that port would share its datagrams: refused, not shared.
  Socket intruder;
  REQUIRE(intruder.listen(endpoint, kairos::kal::Transfer::kMessages) != Status::kOk);

  Socket client;
  REQUIRE(client.connect(endpoint, MonotonicClock::now() + 1s, kairos::kal::Transfer::kMessages) ==
          Status::kOk);
  const char first[] = "cube 3";
  const char second[] = "cube 12";
  REQUIRE(client.send(std::as_bytes(std::span(first))) == sizeof first);
  REQUIRE(client.send(std::as_bytes(std::span(second))) == sizeof second);
  kairos::kal::Poller readable;
  REQUIRE(readable.add(server, 3) == Status::kOk);
  std::array<std::uint64_t, 4> ready{};
  REQUIRE(readable.wait(MonotonicClock::now() + 2s, ready) == 1);
  REQUIRE(ready[0] == 3);
  std::array<std::byte, 64> buffer{};
  REQUIRE(server.receive(buffer) == sizeof first);
  REQUIRE(std::memcmp(buffer.data(), first, sizeof first) == 0);
  REQUIRE(server.receive(buffer) == sizeof second);
  REQUIRE(std::memcmp(buffer.data(), second, sizeof second) == 0);
  REQUIRE(server.receive(buffer) == 0);  // nothing more yet
}

TEST_CASE("a socket added to an opened poller ends a wait another thread has under way",
          "[integration][kal][socket]") {
  // An ORB reader waits on its band's poller before any client has connected; the acceptor adds
  // the first connection from its own thread, and the reader must take its request at once.
  kairos::kal::Poller poller;
  REQUIRE(poller.open() == Status::kOk);
  REQUIRE(poller.open() == Status::kOk);  // idempotent
  std::atomic<std::size_t> count{99};
  std::array<std::uint64_t, 4> ready{};
  const auto began = MonotonicClock::now();
  std::thread waiter([&] { count = poller.wait(MonotonicClock::now() + 10s, ready); });
  std::this_thread::sleep_for(50ms);  // the wait is under way, on a poller that watches nothing

  const Endpoint endpoint = loopback_udp(32000);
  Socket server;
  REQUIRE(server.listen(endpoint, kairos::kal::Transfer::kMessages) == Status::kOk);
  Socket client;
  REQUIRE(client.connect(endpoint, MonotonicClock::now() + 1s, kairos::kal::Transfer::kMessages) ==
          Status::kOk);
  const char request[] = "get 7";
  REQUIRE(client.send(std::as_bytes(std::span(request))) == sizeof request);
  REQUIRE(poller.add(server, 5) == Status::kOk);
  waiter.join();
  // Woken by the socket, not at the wait's deadline ten seconds on.
  REQUIRE(count == 1);
  REQUIRE(ready[0] == 5);
  REQUIRE(MonotonicClock::now() - began < 5s);
}
