// Serving remote requests with the TMO engine: a request for a service method is admitted by the
// engine (basic concurrency constraint, its band's lane, its GCT watched) like a local one, and
// the lane that runs it answers it.
#pragma once

#include <cstddef>

#include <kairos/engine.hpp>
#include <kairos/orb/orb.hpp>

namespace kairos::orb {

/// Hands `request` to `engine` as a request of service method row `svm`. kOk: the engine's lane
/// will run the row's ServiceHandler with the request, which must complete() it. Otherwise the
/// status to answer at once: kOverloaded when the engine's request queue is full, kUnavailable
/// outside its run.
inline ReplyStatus admit(Engine& engine, std::size_t svm, ServerRequest& request) noexcept {
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

}  // namespace kairos::orb
