#include "kairos_catch.hpp"

#include <unistd.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <kairos/kal/socket.hpp>
#include <kairos/kal/tls.hpp>

#include "../tools/openssl_keys.hpp"
#include "tls_identities.hpp"

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

namespace {
/// A connected, accepted pair of tcp: sockets on loopback, secured with TLS: `client` as node
/// `client_node` of `client_keys`, calling a server it expects to be `expected_server`, the
/// server `server_node` of `server_keys`. The statuses of both handshakes.
struct TlsPair {
  kairos::kal::Socket listener;
  kairos::kal::Socket client;
  kairos::kal::Socket server;
  kairos::kal::Status client_status = kairos::kal::Status::kPlatformError;
  kairos::kal::Status server_status = kairos::kal::Status::kUnavailable;

  TlsPair(const kairos::kal::TlsIdentity& client_identity, const char* expected_server,
          const kairos::kal::TlsIdentity& server_identity, int salt) {
    kairos::kal::Endpoint endpoint;
    REQUIRE(kairos::kal::parse_endpoint(
        "tcp:127.0.0.1:" + std::to_string(23000 + (getpid() + salt) % 9000), endpoint));
    REQUIRE(listener.listen(endpoint) == kairos::kal::Status::kOk);
    REQUIRE(client.connect(endpoint, MonotonicClock::now() + 2s) == kairos::kal::Status::kOk);
    const auto give_up = MonotonicClock::now() + 2s;
    while (listener.accept(server) != kairos::kal::Status::kOk && MonotonicClock::now() < give_up) {
      std::this_thread::sleep_for(1ms);
    }
    REQUIRE(server.is_open());
    // The client's handshake blocks; the server's takes a step whenever the client has sent.
    std::thread handshake([&] {
      client_status =
          client.secure_as_client(client_identity, expected_server, MonotonicClock::now() + 2s);
      if (client_status != kairos::kal::Status::kOk) {
        client.close();  // as the ORB does: the server then sees the connection end
      }
    });
    while (server_status == kairos::kal::Status::kUnavailable && MonotonicClock::now() < give_up) {
      server_status = server.secure_as_server(server_identity);
      if (server_status == kairos::kal::Status::kUnavailable) {
        server.wait_readable(MonotonicClock::now() + 10ms);
      }
    }
    handshake.join();
  }
};
}  // namespace

TEST_CASE("TLS 1.3 carries records both ways between nodes that prove their names",
          "[integration][kal][socket][tls]") {
  const std::string keys = openssl_keys::in_tmp("socket", {"alpha", "beta"});
  REQUIRE_FALSE(keys.empty());
  TlsPair pair(testing::loaded_identity(keys, "alpha"), "beta",
               testing::loaded_identity(keys, "beta"), 1);
  REQUIRE(pair.client_status == kairos::kal::Status::kOk);
  REQUIRE(pair.server_status == kairos::kal::Status::kOk);
  REQUIRE(std::string(pair.server.peer_identity()) == "alpha");
  REQUIRE(std::string(pair.client.peer_identity()) == "beta");

  // Messages of every size up to a frame's, and one of a record's whole 16 KB; they arrive as
  // a stream, in order.
  std::vector<std::byte> sent;
  for (std::size_t size : {1u, 32u, 100u, 8224u, 16384u}) {
    std::vector<std::byte> message(size);
    for (std::size_t i = 0; i < size; ++i) {
      message[i] = static_cast<std::byte>((i * 31 + size) & 0xFF);
    }
    REQUIRE(pair.client.send(message) == static_cast<std::int64_t>(size));
    sent.insert(sent.end(), message.begin(), message.end());
  }
  std::vector<std::byte> received(sent.size());
  std::size_t fill = 0;
  const auto give_up = MonotonicClock::now() + 2s;
  while (fill < received.size() && MonotonicClock::now() < give_up) {
    // Small reads: what a record holds beyond the room given waits for the next.
    const std::size_t room = std::min<std::size_t>(5000, received.size() - fill);
    const std::int64_t got =
        pair.server.receive_within({received.data() + fill, room}, MonotonicClock::now() + 1s);
    REQUIRE(got >= 0);
    fill += static_cast<std::size_t>(got);
  }
  REQUIRE(fill == sent.size());
  REQUIRE(received == sent);

  // Replies from several threads at once on one connection (lanes of several cores): every
  // record opens, and each thread's arrive in its order.
  constexpr int kThreads = 4;
  constexpr int kEach = 300;
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&pair, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::array<std::byte, 8> message{static_cast<std::byte>(t), std::byte{0},
                                               static_cast<std::byte>(i >> 8),
                                               static_cast<std::byte>(i & 0xFF)};
        while (pair.server.send(message) == 0) {
          std::this_thread::yield();  // the connection is full: the client is reading
        }
      }
    });
  }
  std::array<int, kThreads> next{};
  std::array<std::byte, 8 * 64> buffer{};
  std::size_t pending = 0;
  int total = 0;
  const auto stop = MonotonicClock::now() + 5s;
  bool in_order = true;
  while (total < kThreads * kEach && MonotonicClock::now() < stop) {
    const std::int64_t got = pair.client.receive_within(
        {buffer.data() + pending, buffer.size() - pending}, MonotonicClock::now() + 500ms);
    REQUIRE(got >= 0);
    pending += static_cast<std::size_t>(got);
    std::size_t at = 0;
    for (; pending - at >= 8; at += 8) {
      const int t = static_cast<int>(buffer[at]);
      const int i = (static_cast<int>(buffer[at + 2]) << 8) | static_cast<int>(buffer[at + 3]);
      in_order = in_order && t < kThreads && i == next[static_cast<std::size_t>(t)];
      ++next[static_cast<std::size_t>(t) % kThreads];
      ++total;
    }
    std::memmove(buffer.data(), buffer.data() + at, pending - at);
    pending -= at;
  }
  for (std::thread& sender : senders) {
    sender.join();
  }
  REQUIRE(in_order);
  REQUIRE(total == kThreads * kEach);

  // The peer's end is the stream's end.
  pair.client.close();
  std::array<std::byte, 16> rest{};
  REQUIRE(pair.server.receive_within(rest, MonotonicClock::now() + 2s) == -1);
}

TEST_CASE("TLS refuses a peer of another CA, and a server that proves another name",
          "[integration][kal][socket][tls]") {
  const std::string keys = openssl_keys::in_tmp("ours", {"alpha", "beta"});
  const std::string foreign = openssl_keys::in_tmp("theirs", {"alpha"});
  REQUIRE_FALSE(keys.empty());
  REQUIRE_FALSE(foreign.empty());
  kairos::kal::TlsIdentity& beta = testing::loaded_identity(keys, "beta");
  {
    INFO("a client whose certificate another CA signed, under a node's name");
    TlsPair pair(testing::loaded_identity(foreign, "alpha"), "beta", beta, 2);
    REQUIRE(pair.server_status != kairos::kal::Status::kOk);
    REQUIRE(pair.client_status != kairos::kal::Status::kOk);
    REQUIRE_FALSE(pair.server.secured());
  }
  {
    INFO("a client that expects node gamma where beta answers");
    TlsPair pair(testing::loaded_identity(keys, "alpha"), "gamma", beta, 3);
    REQUIRE(pair.client_status == kairos::kal::Status::kPermissionDenied);
  }
  {
    INFO("a client that speaks no TLS at all");
    kairos::kal::Socket listener;
    kairos::kal::Endpoint endpoint;
    REQUIRE(kairos::kal::parse_endpoint(
        "tcp:127.0.0.1:" + std::to_string(23000 + (getpid() + 4) % 9000), endpoint));
    REQUIRE(listener.listen(endpoint) == kairos::kal::Status::kOk);
    kairos::kal::Socket client;
    REQUIRE(client.connect(endpoint, MonotonicClock::now() + 2s) == kairos::kal::Status::kOk);
    const char hello[] = "GET / HTTP/1.0\r\n\r\n";
    REQUIRE(client.send({reinterpret_cast<const std::byte*>(hello), sizeof hello}) > 0);
    kairos::kal::Socket server;
    const auto give_up = MonotonicClock::now() + 2s;
    while (listener.accept(server) != kairos::kal::Status::kOk && MonotonicClock::now() < give_up) {
      std::this_thread::sleep_for(1ms);
    }
    kairos::kal::Status status = kairos::kal::Status::kUnavailable;
    while (status == kairos::kal::Status::kUnavailable && MonotonicClock::now() < give_up) {
      status = server.secure_as_server(beta);
      server.wait_readable(MonotonicClock::now() + 10ms);
    }
    REQUIRE(status != kairos::kal::Status::kOk);
    REQUIRE(status != kairos::kal::Status::kUnavailable);
  }
}

TEST_CASE("an identity whose files are missing or name another node does not load",
          "[unit][kal][tls]") {
  const std::string keys = openssl_keys::in_tmp("load", {"alpha"});
  REQUIRE_FALSE(keys.empty());
  kairos::kal::TlsIdentity identity;
  REQUIRE(identity.load(keys.c_str(), "beta") == kairos::kal::Status::kInvalidArgument);
  REQUIRE_THAT(identity.error(), kairos_test::contains("beta.pem"));
  REQUIRE_FALSE(identity.loaded());
  REQUIRE(::rename((keys + "/alpha.pem").c_str(), (keys + "/beta.pem").c_str()) == 0);
  REQUIRE(::rename((keys + "/alpha.key").c_str(), (keys + "/beta.key").c_str()) == 0);
  REQUIRE(identity.load(keys.c_str(), "beta") == kairos::kal::Status::kInvalidArgument);
  REQUIRE_THAT(identity.error(), kairos_test::contains("names node 'alpha', not 'beta'"));
}
