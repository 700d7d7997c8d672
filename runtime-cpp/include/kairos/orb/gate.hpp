// Gates: the client side of remote calls as method bodies see them. A generated stub derives from
// Gate, one per `gate` of a TMO's eac, and offers the callee's operation as a typed member
// (`gates_.sensors.sample(3)`); the generated node main binds it to its route at start-up. A call
// carries the gate's result-return deadline and ends by it; what came back is a Result.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <kairos/cdr.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/orb/orb.hpp>

namespace kairos::orb {

/// The value of an operation without a result.
struct Empty {
  friend bool operator==(const Empty&, const Empty&) = default;
};

/// The body of a message without fields (a service method without an interface operation).
inline cdr::Status encode(cdr::Writer& writer, const Empty& /*value*/) noexcept {
  return writer.status();
}
inline cdr::Status decode(cdr::Reader& reader, Empty& /*value*/) noexcept {
  return reader.status();
}

/// The exception body of an operation that raises nothing: a reply that claims one is malformed.
struct NoException {
  std::variant<std::monostate> raised{};
};
inline cdr::Status decode(cdr::Reader& reader, NoException& /*value*/) noexcept {
  return reader.fail(cdr::Status::kInvalidValue);
}

template <typename T>
using ValueOf = std::conditional_t<std::is_void_v<T>, Empty, T>;

/// What a remote call gave back: its result when ok(), else why there is none; for
/// kUserException, which of the operation's declared exceptions the server raised.
template <typename T, typename... Raises>
class Result {
 public:
  using Raised = std::variant<std::monostate, Raises...>;

  Result() noexcept = default;
  Result(CallStatus status, ValueOf<T> value, Raised raised) noexcept
      : status_(status), value_(std::move(value)), raised_(std::move(raised)) {}

  CallStatus status() const noexcept { return status_; }
  bool ok() const noexcept { return status_ == CallStatus::kOk; }
  explicit operator bool() const noexcept { return ok(); }
  /// The result of a call that succeeded (value-initialised otherwise).
  const ValueOf<T>& value() const noexcept { return value_; }
  /// The declared exception `E` if the server raised it, else nullptr.
  template <typename E>
  const E* raised() const noexcept {
    return std::get_if<E>(&raised_);
  }

 private:
  CallStatus status_ = CallStatus::kNoRoute;
  ValueOf<T> value_{};
  Raised raised_{};
};

/// What a service method whose operation `raises` exceptions returns: its result, or one of
/// them (`return Overload{3};`).
template <typename T, typename... Raises>
class Reply {
 public:
  using Raised = std::variant<std::monostate, Raises...>;

  /// Success: the value-initialised result (or none, for void).
  Reply() noexcept = default;
  Reply(ValueOf<T> value) noexcept  // NOLINT(google-explicit-constructor): a result converts
      requires(!std::is_void_v<T>)
      : value_(std::move(value)) {}
  template <typename E>
  requires(std::is_same_v<std::decay_t<E>, Raises> || ...) Reply(E&& exception)
  noexcept  // NOLINT(google-explicit-constructor): an exception converts
      : raised_(std::forward<E>(exception)) {}

  bool raised() const noexcept { return raised_.index() != 0; }
  const ValueOf<T>& value() const noexcept { return value_; }
  const Raised& exception() const noexcept { return raised_; }

 private:
  ValueOf<T> value_{};
  Raised raised_{};
};

/// A non-blocking call in flight: started by a non-blocking gate's operation, collected later by
/// the gate's `poll` from the same method's lane (the call travels on that lane's connection).
class PendingCall {
 public:
  PendingCall() noexcept = default;
  /// Whether the call is still waiting for its reply (poll() has not returned its outcome).
  bool in_flight() const noexcept { return outcome_ == CallStatus::kPending; }
  /// kPending while in flight, then how the call ended.
  CallStatus status() const noexcept { return outcome_; }

 private:
  friend class Gate;
  Call call_{};
  CallStatus outcome_ = CallStatus::kNoRoute;  ///< a handle that started nothing
  kal::TimePoint start_{};
};

/// Counts of one gate's calls since start (all lanes of its TMO together).
struct GateCounters {
  std::uint64_t calls = 0;     ///< calls made
  std::uint64_t answered = 0;  ///< answered by the deadline (a result or a declared exception)
  std::uint64_t late = 0;      ///< not answered by the deadline (the reply, if any, is dropped)
  std::uint64_t failed = 0;    ///< ended otherwise: refused, disconnected, no route, malformed
  std::int64_t max_round_trip_ns = 0;  ///< longest call that was answered, to its reply's arrival
  /// Non-blocking calls: the longest from a call to the poll that collected its answer. Their
  /// replies wait in the connection until the method polls, so this holds the method's own wait
  /// until its next poll too, and is no round trip: such calls have no max_round_trip_ns.
  std::int64_t max_collected_ns = 0;
};

class Gate {
 public:
  Gate(std::string_view name, kal::Duration deadline, bool oneway) noexcept
      : name_(name), deadline_(deadline), oneway_(oneway) {}
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  /// Routes the gate's calls through `orb` to `target` (the generated main, at start-up).
  void bind(Orb& orb, const Target& target) noexcept {
    orb_ = &orb;
    target_ = target;
  }

  std::string_view name() const noexcept { return name_; }
  /// The result-return deadline, from the call.
  kal::Duration deadline() const noexcept { return deadline_; }
  GateCounters counters() const noexcept {
    return {calls_.load(std::memory_order_relaxed),
            answered_.load(std::memory_order_relaxed),
            late_.load(std::memory_order_relaxed),
            failed_.load(std::memory_order_relaxed),
            max_round_trip_ns_.load(std::memory_order_relaxed),
            max_collected_ns_.load(std::memory_order_relaxed)};
  }

 protected:
  /// A two-way call: marshals `request`, waits for the reply until the deadline, unmarshals it
  /// into `reply`, or the raised exception (`Exception`: the operation's generated exception
  /// type, with its `raised` variant) into `raised`.
  template <typename Exception, typename Request, typename ReplyBody, typename Raised>
  CallStatus invoke(const Request& request, ReplyBody& reply, Raised& raised) noexcept {
    const kal::TimePoint start = kal::MonotonicClock::now();
    Call call = orb_ != nullptr ? orb_->begin(target_) : Call{};
    if (call.status() != CallStatus::kPending) {
      return count(call.status(), start);
    }
    cdr::Writer writer(call.request_body());
    if (encode(writer, request) != cdr::Status::kOk) {
      return count(CallStatus::kTooLarge, start);
    }
    const CallStatus status = orb_->invoke(call, writer.size(), start + deadline_);
    return count(unmarshal<Exception>(call, status, reply, raised), start, call.replied_at());
  }

  /// A oneway call: over once sent (kOk), or why it could not be.
  template <typename Request>
  CallStatus send(const Request& request) noexcept {
    const kal::TimePoint start = kal::MonotonicClock::now();
    Call call = orb_ != nullptr ? orb_->begin(target_) : Call{};
    if (call.status() != CallStatus::kPending) {
      return count(call.status(), start);
    }
    cdr::Writer writer(call.request_body());
    if (encode(writer, request) != cdr::Status::kOk) {
      return count(CallStatus::kTooLarge, start);
    }
    return count(orb_->send(call, writer.size(), start + deadline_, true), start);
  }

  /// A non-blocking call: marshals `request` and sends it without waiting. The returned handle
  /// says kPending while the call is in flight; otherwise the call already ended (not sent).
  template <typename Request>
  PendingCall start(const Request& request) noexcept {
    PendingCall pending;
    pending.start_ = kal::MonotonicClock::now();
    pending.call_ = orb_ != nullptr ? orb_->begin(target_) : Call{};
    if (pending.call_.status() != CallStatus::kPending) {
      pending.outcome_ = count(pending.call_.status(), pending.start_);
      return pending;
    }
    cdr::Writer writer(pending.call_.request_body());
    if (encode(writer, request) != cdr::Status::kOk) {
      pending.outcome_ = count(CallStatus::kTooLarge, pending.start_);
      return pending;
    }
    pending.outcome_ = orb_->send(pending.call_, writer.size(), pending.start_ + deadline_, false);
    if (pending.outcome_ != CallStatus::kPending) {
      count(pending.outcome_, pending.start_);
    }
    return pending;
  }

  /// Collects a non-blocking call without blocking: kPending until its reply has come (then
  /// unmarshalled as invoke() does) or its deadline has passed (kDeadlineExpired).
  template <typename Exception, typename ReplyBody, typename Raised>
  CallStatus collect(PendingCall& pending, ReplyBody& reply, Raised& raised) noexcept {
    if (!pending.in_flight()) {
      return pending.outcome_;
    }
    const CallStatus status = orb_->poll(pending.call_);
    if (status == CallStatus::kPending) {
      return status;
    }
    pending.outcome_ = count(unmarshal<Exception>(pending.call_, status, reply, raised),
                             pending.start_, pending.call_.replied_at(), max_collected_ns_);
    return pending.outcome_;
  }

  bool oneway() const noexcept { return oneway_; }

 private:
  /// Reads what an answered call brought: the reply into `reply`, or the declared exception into
  /// `raised`; a body that does not decode makes the call kMalformed.
  template <typename Exception, typename ReplyBody, typename Raised>
  static CallStatus unmarshal(const Call& call, CallStatus status, ReplyBody& reply,
                              Raised& raised) noexcept {
    if (status != CallStatus::kOk && status != CallStatus::kUserException) {
      return status;
    }
    cdr::Reader reader(call.reply_body(), call.reply_little_endian());
    if (status == CallStatus::kOk) {
      decode(reader, reply);
    } else {
      Exception exception{};
      decode(reader, exception);
      if constexpr (std::is_assignable_v<Raised&, decltype(std::move(exception.raised))>) {
        raised = std::move(exception.raised);
      }
    }
    return reader.finish() == cdr::Status::kOk ? status : CallStatus::kMalformed;
  }

  /// Counts a call that ended with `status` now (a oneway is over once sent).
  CallStatus count(CallStatus status, kal::TimePoint start) noexcept {
    return count(status, start, kal::MonotonicClock::now());
  }

  /// Counts a call that ended with `status`; an answered one took from `start` to `replied_at`
  /// (when its reply was taken, not when it was unmarshalled: a lane preempted in between does
  /// not stretch the round trip past the deadline the reply met).
  CallStatus count(CallStatus status, kal::TimePoint start, kal::TimePoint replied_at) noexcept {
    return count(status, start, replied_at, max_round_trip_ns_);
  }

  /// As above, the answered call's time kept in `longest` (the round trip, or for a non-blocking
  /// call the time until it was collected).
  CallStatus count(CallStatus status, kal::TimePoint start, kal::TimePoint replied_at,
                   std::atomic<std::int64_t>& longest) noexcept {
    calls_.fetch_add(1, std::memory_order_relaxed);
    if (status == CallStatus::kOk || status == CallStatus::kUserException) {
      answered_.fetch_add(1, std::memory_order_relaxed);
      const std::int64_t took = (replied_at - start).count();
      std::int64_t seen = longest.load(std::memory_order_relaxed);
      while (took > seen && !longest.compare_exchange_weak(seen, took, std::memory_order_relaxed)) {
      }
    } else if (status == CallStatus::kDeadlineExpired) {
      late_.fetch_add(1, std::memory_order_relaxed);
    } else {
      failed_.fetch_add(1, std::memory_order_relaxed);
    }
    return status;
  }

  std::string_view name_;
  kal::Duration deadline_;
  bool oneway_;
  Orb* orb_ = nullptr;
  Target target_{};
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<std::uint64_t> answered_{0};
  std::atomic<std::uint64_t> late_{0};
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::int64_t> max_round_trip_ns_{0};
  std::atomic<std::int64_t> max_collected_ns_{0};
};

}  // namespace kairos::orb
