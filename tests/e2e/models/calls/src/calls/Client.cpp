// calls/Client.cpp — method bodies of TMO Client (calls.tmo).
#include "calls/Client.hpp"

#include <cstdio>

namespace calls {

namespace {

/// The key Server does not store: it raises Missing for it instead of answering.
constexpr ::std::uint8_t kMissingKey = 5;

::std::uint32_t cube(::std::uint8_t key) {
  return static_cast<::std::uint32_t>(key) * key * key;
}

}  // namespace

template <typename Outcome>
void Client::check(const Outcome& outcome, ::std::uint8_t key, ::std::uint32_t version,
                   Tally& tally) {
  if (outcome.ok()) {
    // A result: the cube of its key and the key + 1 as its version, never for the missing key.
    ++tally.values;
    if (key == kMissingKey || outcome.value() != cube(key) || version != key + 1U) {
      ++wrong_;
    }
  } else if (outcome.status() == ::kairos::orb::CallStatus::kUserException) {
    // The declared exception, typed, naming the key called; no value, no out argument with it.
    ++tally.raised;
    const Missing* missing = outcome.template raised<Missing>();
    if (missing == nullptr || key != kMissingKey || missing->key != key) {
      ++wrong_key_;
    }
    if (outcome.value() != 0 || version != 0) {
      ++wrong_;
    }
  } else if (outcome.template raised<Missing>() != nullptr) {
    ++wrong_key_;  // an exception with a call that was not answered
  }
  if (!told_ && wrong_ + wrong_key_ > 0) {
    ::std::printf("client: a reply did not answer its request\n");  // once; the test reads it
    told_ = true;
  }
}

void Client::poll(PollAccess ods, PollGates gates) {
  const auto key = static_cast<::std::uint8_t>(polls_++ % 7);
  // Blocking: waits for the reply, at most the gate's 3 ms.
  ::std::uint32_t version = 0;
  const auto now = gates.server.get(key, version);
  check(now, key, version, blocking_);
  if (now.ok()) {
    ++ods.seen.answers;
    ods.seen.last = now.value();
  }
  // Non-blocking: collect the call the previous activation started, then start the next.
  if (pending_.in_flight()) {
    ::std::uint32_t later_version = 0;
    const auto later = gates.async.poll(pending_, later_version);
    if (!pending_.in_flight()) {
      check(later, pending_key_, later_version, async_);
    }
  }
  if (!pending_.in_flight()) {
    pending_key_ = key;
    pending_ = gates.async.get(key);
  }
}

Client::~Client() {
  // After the node's summary: every answered call of each gate, as a result or as Missing.
  ::std::printf(
      "client checked blocking_values=%u blocking_raised=%u async_values=%u async_raised=%u "
      "wrong=%u wrong_key=%u\n",
      blocking_.values, blocking_.raised, async_.values, async_.raised, wrong_, wrong_key_);
}

}  // namespace calls
