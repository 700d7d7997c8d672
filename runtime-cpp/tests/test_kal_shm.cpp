// Shared-memory connections (shm:name) of the Linux KAL: set-up, whole messages both ways, many
// senders on one connection, a peer that goes, and a peer whose memory lies.
#include "kairos_catch.hpp"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <kairos/kal/shared_memory_ring.hpp>
#include <kairos/kal/socket.hpp>

using kairos::kal::Endpoint;
using kairos::kal::MonotonicClock;
using kairos::kal::Socket;
using kairos::kal::Status;
using kairos::kal::Transfer;
namespace shm = kairos::kal::shm;
using namespace std::chrono_literals;

namespace {

Endpoint shm_endpoint(int salt) {
  Endpoint endpoint;
  const std::string text =
      "shm:kairos-test-" + std::to_string(getpid()) + "-" + std::to_string(salt);
  REQUIRE(kairos::kal::parse_endpoint(text, endpoint));
  return endpoint;
}

/// A listening server and one connected client, the server's side of it watched by a Poller.
struct Pair {
  Socket listener;
  Socket server;
  Socket client;
  kairos::kal::Poller poller;

  Endpoint endpoint;

  explicit Pair(int salt) : endpoint{shm_endpoint(salt)} {
    REQUIRE(listener.listen(endpoint, Transfer::kMessages) == Status::kOk);
    kairos::kal::Poller accepting;
    REQUIRE(accepting.add(listener, 1) == Status::kOk);
    // The client waits for the server's answer inside connect(): accept from another thread.
    std::thread acceptor([&] {
      std::array<std::uint64_t, 1> ready{};
      if (accepting.wait(MonotonicClock::now() + 2s, ready) == 1) {
        CHECK(listener.accept(server) == Status::kOk);
      }
    });
    const Status connected =
        client.connect(endpoint, MonotonicClock::now() + 2s, Transfer::kMessages);
    acceptor.join();
    REQUIRE(connected == Status::kOk);
    REQUIRE(server.is_open());
    REQUIRE(poller.add(server, 7) == Status::kOk);
  }
  ~Pair() {
    poller.remove(server);
    kairos::kal::remove_endpoint_file(endpoint);  // the set-up socket's file
  }

  /// The server's next message, waiting for it through the Poller; -1 once closed, 0 if none
  /// came in 2 s.
  std::int64_t server_receive(std::span<std::byte> buffer) {
    const auto give_up = MonotonicClock::now() + 2s;
    while (MonotonicClock::now() < give_up) {
      std::array<std::uint64_t, 4> ready{};
      if (poller.wait(give_up, ready) == 0) {
        continue;
      }
      if (const std::int64_t got = server.receive(buffer); got != 0) {
        return got;
      }
    }
    return 0;
  }

  std::int64_t client_receive(std::span<std::byte> buffer) {
    const auto give_up = MonotonicClock::now() + 2s;
    while (MonotonicClock::now() < give_up) {
      if (!client.wait_readable(give_up)) {
        continue;
      }
      if (const std::int64_t got = client.receive(buffer); got != 0) {
        return got;
      }
    }
    return 0;
  }
};

std::span<const std::byte> bytes_of(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

std::string text_of(std::span<const std::byte> bytes, std::int64_t size) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), static_cast<std::size_t>(size));
}

/// Acts as a client written by someone else: takes the memory and doorbells the server hands
/// over, and then may write anything into them.
struct RawClient {
  int setup = -1;
  int memory = -1;
  int to_server = -1;
  int to_client = -1;
  std::byte* mapping = nullptr;

  explicit RawClient(const Endpoint& endpoint) {
    sockaddr_un address{};
    socklen_t length = 0;
    REQUIRE(shm::setup_address(endpoint.address, address, length));
    setup = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    REQUIRE(::connect(setup, reinterpret_cast<sockaddr*>(&address), length) == 0);
  }
  /// After the server accepted.
  void take_memory() {
    shm::SetupMessage message{};
    iovec part{&message, sizeof message};
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
    msghdr header{};
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    REQUIRE(::recvmsg(setup, &header, MSG_CMSG_CLOEXEC) == sizeof message);
    int fds[3];
    std::memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&header)), sizeof fds);
    memory = fds[0];
    to_server = fds[1];
    to_client = fds[2];
    void* mapped =
        ::mmap(nullptr, shm::Layout::kSize, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
    REQUIRE(mapped != MAP_FAILED);
    mapping = static_cast<std::byte*>(mapped);
  }
  shm::MessageRing to_server_ring() const {
    return shm::MessageRing(mapping + shm::Layout::kControlOffset[0],
                            mapping + shm::Layout::kDataOffset[0]);
  }
  /// Writes a record header at ring 0's position `position`.
  void write_record(std::uint64_t position, std::uint64_t stamp, std::uint32_t size,
                    std::uint32_t kind, std::uint64_t head) {
    std::byte* data = mapping + shm::Layout::kDataOffset[0] + position % shm::kRingCapacity;
    std::memcpy(data + 8, &size, sizeof size);
    std::memcpy(data + 12, &kind, sizeof kind);
    std::memcpy(data, &stamp, sizeof stamp);
    auto* control = reinterpret_cast<shm::RingControl*>(mapping + shm::Layout::kControlOffset[0]);
    control->head = head;
  }
  void ring_server() const {
    const std::uint64_t one = 1;
    REQUIRE(::write(to_server, &one, sizeof one) == sizeof one);
  }
  ~RawClient() {
    if (mapping != nullptr) {
      ::munmap(mapping, shm::Layout::kSize);
    }
    for (int fd : {setup, memory, to_server, to_client}) {
      if (fd >= 0) {
        ::close(fd);
      }
    }
  }
};

}  // namespace

TEST_CASE("shm endpoints parse as the language writes them", "[unit][kal][shm]") {
  Endpoint e;
  REQUIRE(kairos::kal::parse_endpoint("shm:mission_1-a", e));
  REQUIRE(e.kind == Endpoint::Kind::kShm);
  REQUIRE(std::string(e.address) == "mission_1-a");
  REQUIRE(
      kairos::kal::parse_endpoint("shm:" + std::string(kairos::kal::kMaxSharedMemoryName, 'x'), e));
  for (const std::string& bad :
       {std::string("shm:"), std::string("shm:a/b"), std::string("shm:a b"),
        std::string("shm:") + std::string(kairos::kal::kMaxSharedMemoryName + 1, 'x')}) {
    INFO(bad);
    REQUIRE_FALSE(kairos::kal::parse_endpoint(bad, e));
  }
}

TEST_CASE("a shm connection carries whole messages both ways", "[integration][kal][shm]") {
  Pair pair(1);
  std::array<std::byte, 256> buffer{};
  REQUIRE(pair.client.receive(buffer) == 0);  // nothing yet

  for (int round = 0; round < 100; ++round) {
    const std::string request = "cube " + std::to_string(round);
    REQUIRE(pair.client.send(bytes_of(request)) == static_cast<std::int64_t>(request.size()));
    const std::int64_t got = pair.server_receive(buffer);
    REQUIRE(got == static_cast<std::int64_t>(request.size()));
    REQUIRE(text_of(buffer, got) == request);

    const std::string reply = std::to_string(round * round * round);
    REQUIRE(pair.server.send(bytes_of(reply)) == static_cast<std::int64_t>(reply.size()));
    const std::int64_t answer = pair.client_receive(buffer);
    REQUIRE(text_of(buffer, answer) == reply);
  }

  SECTION("messages sent together arrive one by one, in order") {
    for (int i = 0; i < 5; ++i) {
      REQUIRE(pair.client.send(bytes_of("m" + std::to_string(i))) == 2);
    }
    for (int i = 0; i < 5; ++i) {
      const std::int64_t got = pair.server_receive(buffer);
      REQUIRE(text_of(buffer, got) == "m" + std::to_string(i));
    }
  }
  SECTION("a message longer than the receive buffer is refused, not cut") {
    REQUIRE(pair.client.send(bytes_of(std::string(100, 'x'))) == 100);
    std::array<std::byte, 10> small{};
    REQUIRE(pair.server_receive(small) == -1);
  }
  SECTION("the largest message fits, a larger one is refused") {
    std::vector<std::byte> largest(kairos::kal::kLargestSharedMemoryMessage, std::byte{0x5a});
    REQUIRE(pair.client.send(largest) == static_cast<std::int64_t>(largest.size()));
    std::vector<std::byte> into(largest.size());
    REQUIRE(pair.server_receive(into) == static_cast<std::int64_t>(largest.size()));
    REQUIRE(into == largest);
    largest.push_back(std::byte{0});
    REQUIRE(pair.client.send(largest) == -1);
  }
  SECTION("a reader that does not read fills the ring: the send fails, nothing blocks") {
    const std::vector<std::byte> big(8000, std::byte{1});
    int sent = 0;
    while (sent < 1000 && pair.client.send(big) == static_cast<std::int64_t>(big.size())) {
      ++sent;
    }
    REQUIRE(sent >= static_cast<int>(shm::kLargestMessagesPerRing) - 1);
    REQUIRE(sent < 1000);
    REQUIRE(pair.client.send(big) == 0);
    std::vector<std::byte> into(big.size());
    for (int i = 0; i < sent; ++i) {  // every one of them arrives whole
      REQUIRE(pair.server_receive(into) == static_cast<std::int64_t>(big.size()));
    }
    REQUIRE(pair.client.send(big) == static_cast<std::int64_t>(big.size()));  // room again
  }
}

TEST_CASE("many threads sending on one shm connection: every message arrives whole",
          "[integration][kal][shm]") {
  Pair pair(2);
  constexpr int kSenders = 4;
  constexpr int kMessages = 3000;
  std::atomic<int> refused{0};
  std::vector<std::thread> senders;
  for (int sender = 0; sender < kSenders; ++sender) {
    senders.emplace_back([&, sender] {
      std::array<std::byte, 1024> message{};
      for (int i = 0; i < kMessages; ++i) {
        // Sizes vary so that records wrap the ring's end at every offset; every byte carries
        // the sender and the sequence number, so a torn or mixed message shows.
        const std::size_t size = 8 + static_cast<std::size_t>((i * 37 + sender * 11) % 1000);
        const std::uint32_t words[2] = {static_cast<std::uint32_t>(sender),
                                        static_cast<std::uint32_t>(i)};
        std::memcpy(message.data(), words, sizeof words);
        std::memset(message.data() + 8, (sender * 31 + i) & 0xff, size - 8);
        const auto give_up = MonotonicClock::now() + 10s;
        std::int64_t sent = 0;
        while ((sent = pair.server.send({message.data(), size})) == 0 &&
               MonotonicClock::now() < give_up) {
          refused.fetch_add(1, std::memory_order_relaxed);  // full: the reader is behind
          std::this_thread::yield();
        }
        REQUIRE(sent == static_cast<std::int64_t>(size));
      }
    });
  }
  std::array<int, kSenders> next{};
  std::array<std::byte, 1024> buffer{};
  int received = 0;
  bool whole = true;
  while (received < kSenders * kMessages) {
    const std::int64_t got = pair.client_receive(buffer);
    if (got <= 0) {
      break;
    }
    std::uint32_t words[2];
    std::memcpy(words, buffer.data(), sizeof words);
    const int sender = static_cast<int>(words[0]);
    const int i = static_cast<int>(words[1]);
    const std::size_t size = 8 + static_cast<std::size_t>((i * 37 + sender * 11) % 1000);
    whole = whole && sender < kSenders && i == next[static_cast<std::size_t>(sender)] &&
            static_cast<std::size_t>(got) == size;
    for (std::size_t b = 8; whole && b < size; ++b) {
      whole = std::to_integer<int>(buffer[b]) == ((sender * 31 + i) & 0xff);
    }
    if (!whole) {
      break;
    }
    ++next[static_cast<std::size_t>(sender)];
    ++received;
  }
  for (auto& sender : senders) {
    sender.join();
  }
  REQUIRE(whole);
  REQUIRE(received == kSenders * kMessages);
}

TEST_CASE("a shm peer that closes or shuts down is seen as closed", "[integration][kal][shm]") {
  std::array<std::byte, 64> buffer{};
  SECTION("the client closes: the server's watcher wakes and reads the end") {
    Pair pair(3);
    REQUIRE(pair.client.send(bytes_of("last")) == 4);
    pair.client.close();
    REQUIRE(pair.server_receive(buffer) == 4);  // what was sent before still arrives
    REQUIRE(pair.server_receive(buffer) == -1);
  }
  SECTION("the server closes: a client waiting for a reply learns it at once") {
    Pair pair(4);
    pair.poller.remove(pair.server);
    pair.server.close();
    const auto before = MonotonicClock::now();
    REQUIRE(pair.client.wait_readable(before + 5s));
    REQUIRE(MonotonicClock::now() - before < 4s);
    REQUIRE(pair.client.receive(buffer) == -1);
  }
  SECTION("shutdown ends it for both sides, and sends fail") {
    Pair pair(5);
    pair.server.shutdown();
    REQUIRE(pair.server_receive(buffer) == -1);
    REQUIRE(pair.server.send(bytes_of("x")) == -1);
    REQUIRE(pair.client_receive(buffer) == -1);
  }
  SECTION("a stream transfer is refused") {
    Socket socket;
    REQUIRE(socket.listen(shm_endpoint(6), Transfer::kStream) == Status::kInvalidArgument);
  }
}

TEST_CASE("a corrupt ring closes the connection, never reads out of bounds",
          "[integration][kal][shm]") {
  const Endpoint endpoint = shm_endpoint(7);
  Socket listener;
  REQUIRE(listener.listen(endpoint, Transfer::kMessages) == Status::kOk);
  struct Removed {
    const Endpoint& endpoint;
    ~Removed() { kairos::kal::remove_endpoint_file(endpoint); }
  } removed{endpoint};
  RawClient peer(endpoint);
  Socket server;
  REQUIRE(listener.accept(server) == Status::kOk);
  peer.take_memory();
  kairos::kal::Poller poller;
  REQUIRE(poller.add(server, 1) == Status::kOk);
  std::array<std::byte, 64> buffer{};
  // What the server receives after the peer rings it: a message's length, -1 for a closed
  // connection, 0 when nothing was complete within `patience` (the only outcome that waits it out).
  auto server_sees = [&](kairos::kal::Duration patience = 20s) {
    peer.ring_server();
    const auto give_up = MonotonicClock::now() + patience;
    std::array<std::uint64_t, 2> ready{};
    std::int64_t got = 0;
    while (got == 0 && MonotonicClock::now() < give_up) {
      if (poller.wait(give_up, ready) > 0) {
        got = server.receive(buffer);
      }
    }
    return got;
  };

  // An honest message first: the raw client speaks the protocol through the ring's own code.
  REQUIRE(peer.to_server_ring().push(bytes_of("hello")) == shm::PushResult::kOk);
  REQUIRE(server_sees() == 5);
  const std::uint64_t position = shm::record_size(5);
  constexpr auto kMessage = static_cast<std::uint32_t>(shm::RecordKind::kMessage);
  constexpr auto kPadding = static_cast<std::uint32_t>(shm::RecordKind::kPadding);

  SECTION("a length beyond the ring") {
    peer.write_record(position, position + 1, 0x7fffffff, kMessage, position + 64);
    REQUIRE(server_sees() == -1);
  }
  SECTION("a length beyond what the senders reserved") {
    peer.write_record(position, position + 1, 40, kMessage, position + 16);
    REQUIRE(server_sees() == -1);
  }
  SECTION("a commit word stamped for a later lap") {
    peer.write_record(position, position + 1 + shm::kRingCapacity, 5, kMessage, position + 32);
    REQUIRE(server_sees() == -1);
  }
  SECTION("a torn commit word") {
    peer.write_record(position, 0x0000000800020001, 5, kMessage, position + 32);
    REQUIRE(server_sees() == -1);
  }
  SECTION("a record of no known kind") {
    peer.write_record(position, position + 1, 5, 77, position + 32);
    REQUIRE(server_sees() == -1);
  }
  SECTION("padding in the middle of the ring") {
    peer.write_record(position, position + 1, 16, kPadding, position + 64);
    REQUIRE(server_sees() == -1);
  }
  SECTION("senders claiming more than a ring ahead") {
    peer.write_record(position, 0, 0, 0, position + shm::kRingCapacity + 16);
    REQUIRE(server_sees() == -1);
  }
  SECTION("a record reserved but not yet committed is waited for, not read") {
    peer.write_record(position, 0, 5, kMessage, position + 32);
    REQUIRE(server_sees(300ms) == 0);
    peer.write_record(position, position + 1, 5, kMessage, position + 32);
    REQUIRE(server_sees() == 5);
  }
  SECTION("a consumer position ahead of the senders fails the server's own sends") {
    auto* control =
        reinterpret_cast<shm::RingControl*>(peer.mapping + shm::Layout::kControlOffset[1]);
    control->tail = 1u << 20;
    REQUIRE(server.send(bytes_of("reply")) == -1);
  }
  SECTION("a head between two records fails the server's own sends, writing nothing") {
    // An empty ring whose words stand 8 bytes before its end: padding there would be shorter
    // than a record header, which would then lie across the end of the ring.
    auto* control =
        reinterpret_cast<shm::RingControl*>(peer.mapping + shm::Layout::kControlOffset[1]);
    control->head = shm::kRingCapacity - 8;
    control->tail = shm::kRingCapacity - 8;
    REQUIRE(server.send(bytes_of("reply")) == -1);
  }
  poller.remove(server);
}
