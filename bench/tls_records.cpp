// What TLS adds to a tcp: call, without the scheduler in the figure: one thread plays both ends
// of a loopback TCP connection through the runtime's kal::Socket, a 96-byte request (a 32-byte
// frame header and 64 bytes) sent, received, a reply of the same size sent back and received,
// once in the clear and once under TLS 1.3 (the runtime's record layer: AES-128-GCM sealed and
// opened per frame, and the send lock). The baseline is the same exchange in the clear, in the
// same run, interleaved round by round so that a stall of the machine falls on both. The
// difference is the record layer's cost per round trip (two records each way sealed, two opened:
// four of each per call between two nodes counts both nodes); a call between threads on two CPUs
// (kairos_bench_cubit --transport tcp, its tcp-tls row) adds the wake-ups, whose noise on this
// machine is larger than that cost.
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <kairos/kal/socket.hpp>
#include <kairos/kal/tls.hpp>

#include "../runtime-cpp/tools/openssl_keys.hpp"
#include "stats.hpp"

namespace {

using kairos::kal::MonotonicClock;
using kairos::kal::Socket;
using kairos::kal::Status;
using namespace std::chrono_literals;

constexpr std::size_t kFrame = 96;

/// A connected pair on loopback port `port`, secured when `client_identity` is given.
bool connect_pair(int port, Socket& listener, Socket& client, Socket& server,
                  const kairos::kal::TlsIdentity* client_identity,
                  const kairos::kal::TlsIdentity* server_identity) {
  kairos::kal::Endpoint endpoint;
  if (!kairos::kal::parse_endpoint("tcp:127.0.0.1:" + std::to_string(port), endpoint) ||
      listener.listen(endpoint) != Status::kOk ||
      client.connect(endpoint, MonotonicClock::now() + 2s) != Status::kOk) {
    return false;
  }
  const auto give_up = MonotonicClock::now() + 2s;
  while (listener.accept(server) != Status::kOk) {
    if (MonotonicClock::now() > give_up) {
      return false;
    }
    std::this_thread::sleep_for(1ms);
  }
  if (client_identity == nullptr) {
    return true;
  }
  Status client_status = Status::kPlatformError;
  std::thread handshake([&] {
    client_status =
        client.secure_as_client(*client_identity, "bench-server", MonotonicClock::now() + 2s);
  });
  Status server_status = Status::kUnavailable;
  while (server_status == Status::kUnavailable && MonotonicClock::now() < give_up) {
    server_status = server.secure_as_server(*server_identity);
    if (server_status == Status::kUnavailable) {
      server.wait_readable(MonotonicClock::now() + 10ms);
    }
  }
  handshake.join();
  return client_status == Status::kOk && server_status == Status::kOk;
}

/// Sends `frame` on `from` and takes it whole from `to`.
bool pass(Socket& from, Socket& to, const std::array<std::byte, kFrame>& frame) {
  if (from.send(frame) != static_cast<std::int64_t>(kFrame)) {
    return false;
  }
  std::array<std::byte, kFrame> got{};
  std::size_t fill = 0;
  while (fill < kFrame) {
    const std::int64_t n =
        to.receive_within({got.data() + fill, kFrame - fill}, MonotonicClock::now() + 1s);
    if (n <= 0) {
      return false;
    }
    fill += static_cast<std::size_t>(n);
  }
  return std::memcmp(got.data(), frame.data(), kFrame) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 20000;
  if (argc == 3 && std::strcmp(argv[1], "--samples") == 0) {
    samples = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--samples N]\n", argv[0]);
    return 2;
  }
  const std::string keys = openssl_keys::in_tmp("bench", {"bench-server", "bench-client"});
  kairos::kal::TlsIdentity server_identity;
  kairos::kal::TlsIdentity client_identity;
  if (keys.empty() || server_identity.load(keys.c_str(), "bench-server") != Status::kOk ||
      client_identity.load(keys.c_str(), "bench-client") != Status::kOk) {
    std::fprintf(stderr, "tls_records: cannot make or load keys (the openssl command): %s%s\n",
                 server_identity.error(), client_identity.error());
    return 1;
  }
  const int port = 24000 + getpid() % 8000;
  Socket plain_listener, plain_client, plain_server;
  Socket tls_listener, tls_client, tls_server;
  if (!connect_pair(port, plain_listener, plain_client, plain_server, nullptr, nullptr) ||
      !connect_pair(port + 1, tls_listener, tls_client, tls_server, &client_identity,
                    &server_identity)) {
    std::fprintf(stderr, "tls_records: cannot connect on loopback\n");
    return 1;
  }
  std::printf(
      "tls_records: a 96-byte request and reply through kal::Socket on loopback TCP, one "
      "thread, %d round trips each\n",
      samples);
  bench::print_load();
  std::array<std::byte, kFrame> frame{};
  for (std::size_t i = 0; i < kFrame; ++i) {
    frame[i] = static_cast<std::byte>(i);
  }
  std::vector<std::int64_t> plain_ns;
  std::vector<std::int64_t> tls_ns;
  plain_ns.reserve(static_cast<std::size_t>(samples));
  tls_ns.reserve(static_cast<std::size_t>(samples));
  for (int i = -samples / 10; i < samples; ++i) {
    const auto t0 = MonotonicClock::now();
    const bool plain_ok =
        pass(plain_client, plain_server, frame) && pass(plain_server, plain_client, frame);
    const auto t1 = MonotonicClock::now();
    const bool tls_ok = pass(tls_client, tls_server, frame) && pass(tls_server, tls_client, frame);
    const auto t2 = MonotonicClock::now();
    if (!plain_ok || !tls_ok) {
      std::fprintf(stderr, "tls_records: round trip %d failed\n", i);
      return 1;
    }
    if (i >= 0) {  // the first tenth warms up
      plain_ns.push_back((t1 - t0).count());
      tls_ns.push_back((t2 - t1).count());
    }
  }
  bench::print("round trip, clear TCP (the baseline)", bench::summarize(plain_ns));
  bench::print("round trip, TLS 1.3 (records sealed and opened)", bench::summarize(tls_ns));
  const bench::Summary plain = bench::summarize(plain_ns);
  const bench::Summary tls = bench::summarize(tls_ns);
  std::printf("TLS adds %.2f us at the median, %.2f us at p99 (%.0f%% of the clear round trip)\n",
              tls.p50_us - plain.p50_us, tls.p99_us - plain.p99_us,
              100.0 * (tls.p50_us - plain.p50_us) / plain.p50_us);
  bench::print_load();
  return 0;
}
