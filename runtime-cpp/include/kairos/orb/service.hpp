// Serving remote requests with the TMO engine: a request for a service method is admitted by the
// engine (basic concurrency constraint, its band's lane, its GCT watched) like a local one, and
// the lane that runs it answers it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <kairos/cdr.hpp>

#include <kairos/engine.hpp>
#include <kairos/orb/gate.hpp>
#include <kairos/orb/orb.hpp>

namespace kairos::orb {

/// Hands `request` to `engine` as a request of service method row `svm`. kOk: the row's
/// ServiceHandler runs with the request and must complete() it: at once on this thread when
/// the engine lets the band's reader serve it on the lane's behalf (Engine::serve_here: its lane
/// idle, BCC admitting it), else later on the lane. Otherwise the status to answer at once:
/// kRateExceeded when it comes sooner than the method's max-rate allows (Engine::admit_arrival),
/// kOverloaded when the engine's request queue is full, kUnavailable once its run is over (a
/// request before the run's epoch waits for it).
inline ReplyStatus admit(Engine& engine, std::size_t svm, ServerRequest& request) noexcept {
  if (engine.admit_arrival(svm) == kal::Status::kRateExceeded) {
    return ReplyStatus::kRateExceeded;
  }
  if (engine.serve_here(svm, &request)) {
    return ReplyStatus::kOk;
  }
  switch (engine.request(svm, &request)) {
    case kal::Status::kOk:
      return ReplyStatus::kOk;
    case kal::Status::kResourceExhausted:
      return ReplyStatus::kOverloaded;
    case kal::Status::kUnavailable:
      return ReplyStatus::kUnavailable;
    default:
      return ReplyStatus::kNoSuchTarget;
  }
}

/// admit() for row `row` of the node's service-method table, once the request is seen to travel
/// on that method's band (a client generated from another model would not): kNoSuchTarget if not.
inline ReplyStatus admit_row(Engine& engine, std::span<const SvmEntry> table, std::size_t row,
                             ServerRequest& request) noexcept {
  if (row >= table.size() || request.header().band != table[row].band) {
    return ReplyStatus::kNoSuchTarget;
  }
  return admit(engine, row, request);
}

/// Unmarshals a request's arguments; on failure answers it as malformed and returns false.
template <typename Arguments>
bool unmarshal(ServerRequest& request, Arguments& arguments) noexcept {
  if (cdr::decode_body(request.body(), request.header().little_endian, arguments) !=
      cdr::Status::kOk) {
    request.complete(ReplyStatus::kMalformed, 0);
    return false;
  }
  return true;
}

/// Answers a request with its reply (a oneway request is only released).
template <typename ReplyBody>
void answer(ServerRequest& request, const ReplyBody& reply) noexcept {
  std::size_t size = 0;
  // Fits by construction: the model's replies are checked against the body capacity.
  const cdr::Status status = cdr::encode_body(request.reply_body(), reply, size);
  request.complete(status == cdr::Status::kOk ? ReplyStatus::kOk : ReplyStatus::kMalformed, size);
}

/// Answers a request with the declared exception its method raised (`exception.raised` holds it;
/// its index, from 1, is the exception's place in the operation's `raises`).
template <typename Exception>
void answer_exception(ServerRequest& request, const Exception& exception) noexcept {
  std::size_t size = 0;
  const cdr::Status status = cdr::encode_body(request.reply_body(), exception, size);
  request.complete(
      status == cdr::Status::kOk ? ReplyStatus::kUserException : ReplyStatus::kMalformed, size,
      static_cast<std::uint8_t>(exception.raised.index()));
}

}  // namespace kairos::orb
