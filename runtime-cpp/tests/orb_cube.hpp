// The cube service the ORB tests serve on every platform: a servant on the TMO engine, the
// dispatch a generated skeleton would do, and its service-method row.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <thread>

#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/orb/orb.hpp>
#include <kairos/orb/service.hpp>

namespace orb_cube {

using namespace std::chrono_literals;

constexpr kairos::kal::PriorityBand kServiceBand = 3;
constexpr std::uint16_t kCubeObject = 5;
constexpr std::uint16_t kCubeOperation = 0;
constexpr std::uint16_t kSlowOperation = 1;

struct CubeServant {
  kairos::Engine* engine = nullptr;
  std::atomic<int> served{0};
  std::atomic<int> oneways{0};
  /// When the last oneway reached the server (ServerRequest::arrival).
  std::atomic<std::int64_t> oneway_arrival_ns{0};
  kairos::kal::Duration slow_work = 200ms;
  /// The argument of each two-way cube request in the order the server's reader took them in (the
  /// first kDispatchLog of them), and how many it took.
  static constexpr int kDispatchLog = 1024;
  std::array<std::atomic<std::int32_t>, kDispatchLog> dispatched{};
  std::atomic<int> dispatched_count{0};
};

inline std::int32_t read_int(std::span<const std::byte> body) {
  std::int32_t value = 0;
  std::memcpy(&value, body.data(), sizeof value);
  return value;
}

// The engine's lane runs this for each admitted request: the part a generated skeleton does.
inline void serve_cube(void* servant, void* request) {
  auto& cube = *static_cast<CubeServant*>(servant);
  auto& call = *static_cast<kairos::orb::ServerRequest*>(request);
  if (call.header().operation == kSlowOperation) {
    // Virtual time passes only where code says so; a real lane just takes long.
    if (kairos::kal::kSimulatedTime) {
      kairos::kal::busy_for(cube.slow_work);
    } else {
      std::this_thread::sleep_for(cube.slow_work);
    }
  }
  if (call.oneway()) {
    cube.oneways.fetch_add(1);
    cube.oneway_arrival_ns = kairos::kal::to_nanoseconds(call.arrival());
    call.complete(kairos::orb::ReplyStatus::kOk, 0);
    return;
  }
  if (call.body().size() != sizeof(std::int32_t)) {
    call.complete(kairos::orb::ReplyStatus::kMalformed, 0);
    return;
  }
  const std::int32_t x = read_int(call.body());
  if (x < 0) {
    const std::uint32_t detail = 7;  // a declared exception with one field
    std::memcpy(call.reply_body().data(), &detail, sizeof detail);
    call.complete(kairos::orb::ReplyStatus::kUserException, sizeof detail, 1);
    return;
  }
  const std::int32_t cubed = x * x * x;
  std::memcpy(call.reply_body().data(), &cubed, sizeof cubed);
  cube.served.fetch_add(1);
  call.complete(kairos::orb::ReplyStatus::kOk, sizeof cubed);
}

inline void no_miss(void*, const kairos::MissReport&) noexcept {}

inline kairos::orb::ReplyStatus dispatch_cube(void* context,
                                              kairos::orb::ServerRequest& request) noexcept {
  auto& cube = *static_cast<CubeServant*>(context);
  if (request.header().operation > kSlowOperation || request.header().band != kServiceBand) {
    return kairos::orb::ReplyStatus::kNoSuchTarget;
  }
  if (!request.oneway() && request.body().size() == sizeof(std::int32_t)) {
    const int taken = cube.dispatched_count.fetch_add(1);
    if (taken < CubeServant::kDispatchLog) {
      cube.dispatched[static_cast<std::size_t>(taken)].store(read_int(request.body()));
    }
  }
  return kairos::orb::admit(*cube.engine, 0, request);
}

inline const kairos::SvmEntry kCubeRow{.instance = "cube",
                                       .method = "cube",
                                       .source = "orb_cube.hpp",
                                       .gct = 1s,
                                       .wcet = 10us,
                                       .criticality = kairos::Criticality::kHard,
                                       .band = kServiceBand,
                                       .admission_slot = 10us};

/// One cube call from the calling thread's lane: its status, and `result` when kOk.
inline kairos::orb::CallStatus cube(kairos::orb::Orb& orb, std::uint8_t peer, std::int32_t x,
                                    std::int32_t& result, std::uint16_t operation,
                                    kairos::kal::TimePoint deadline) {
  auto call = orb.begin({peer, kServiceBand, kCubeObject, operation});
  if (call.status() != kairos::orb::CallStatus::kPending) {
    return call.status();
  }
  std::memcpy(call.request_body().data(), &x, sizeof x);
  const kairos::orb::CallStatus status = orb.invoke(call, sizeof x, deadline);
  if (status == kairos::orb::CallStatus::kOk) {
    if (call.reply_body().size() != sizeof result) {
      return kairos::orb::CallStatus::kMalformed;
    }
    result = read_int(call.reply_body());
  }
  return status;
}

}  // namespace orb_cube
