// Values of every type and message of examples/alltypes for the marshalling tests: deterministic
// fillers (a splitmix64 stream, strings and sequences of random or full length) and the list of
// the types with their generated maximum sizes. Used by the round-trip program
// (tests/e2e/test_marshalling.py) and by the fuzzer's seed generator (tests/fuzz).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "alltypes/Exchange.cdr.hpp"
#include "types.cdr.hpp"
#include "types.hpp"

namespace alltypes_values {

namespace ex = ::alltypes::cdr::Exchange;

/// Deterministic values: a splitmix64 stream.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }
  std::size_t below(std::size_t bound) { return static_cast<std::size_t>(next() % bound); }

 private:
  std::uint64_t state_;
};

/// How long strings and sequences are: random, or as long as their bound allows.
enum class Length { kRandom, kFull };

// Every fill overload is declared before the templates that call it for their elements.
inline void fill(alltypes::Color& value, Rng& rng, Length length);
inline void fill(alltypes::Single& value, Rng& rng, Length length);
inline void fill(alltypes::Primitives& value, Rng& rng, Length length);
inline void fill(alltypes::Point& value, Rng& rng, Length length);
inline void fill(alltypes::Empty& value, Rng& rng, Length length);
inline void fill(alltypes::Segment& value, Rng& rng, Length length);
inline void fill(alltypes::Grid& value, Rng& rng, Length length);
inline void fill(alltypes::Collections& value, Rng& rng, Length length);
inline void fill(alltypes::Typedefs& value, Rng& rng, Length length);
inline void fill(alltypes::Overload& value, Rng& rng, Length length);
inline void fill(alltypes::Unavailable& value, Rng& rng, Length length);
inline void fill(alltypes::Everything& value, Rng& rng, Length length);

inline void fill(bool& value, Rng& rng, Length /*length*/) {
  value = (rng.next() & 1U) == 1U;
}
inline void fill(char& value, Rng& rng, Length /*length*/) {
  value = static_cast<char>('a' + static_cast<int>(rng.below(26)));
}
inline void fill(float& value, Rng& rng, Length /*length*/) {
  value = static_cast<float>(static_cast<int>(rng.below(20001)) - 10000) / 8.0F;
}
inline void fill(double& value, Rng& rng, Length /*length*/) {
  value = static_cast<double>(static_cast<std::int64_t>(rng.below(2000001)) - 1000000) / 1024.0;
}
template <std::integral T>
inline void fill(T& value, Rng& rng, Length /*length*/) {
  value = static_cast<T>(rng.next());
}

inline std::size_t length_of(std::size_t bound, Rng& rng, Length length) {
  return length == Length::kFull ? bound : rng.below(bound + 1);
}

template <std::size_t N>
inline void fill(kairos::BoundedString<N>& value, Rng& rng, Length length);
template <typename T, std::size_t N>
inline void fill(kairos::BoundedSequence<T, N>& value, Rng& rng, Length length);
template <typename T, std::size_t N>
inline void fill(std::array<T, N>& value, Rng& rng, Length length);

template <std::size_t N>
inline void fill(kairos::BoundedString<N>& value, Rng& rng, Length length) {
  value.resize(length_of(N, rng, length));
  for (std::size_t i = 0; i < value.size(); ++i) {
    fill(value.data()[i], rng, length);
  }
}

template <typename T, std::size_t N>
inline void fill(kairos::BoundedSequence<T, N>& value, Rng& rng, Length length) {
  value.resize(length_of(N, rng, length));
  for (T& element : value) {
    fill(element, rng, length);
  }
}

template <typename T, std::size_t N>
inline void fill(std::array<T, N>& value, Rng& rng, Length length) {
  for (T& element : value) {
    fill(element, rng, length);
  }
}

inline void fill(alltypes::Color& value, Rng& rng, Length /*length*/) {
  value = static_cast<alltypes::Color>(rng.below(3));
}
inline void fill(alltypes::Single& value, Rng& /*rng*/, Length /*length*/) {
  value = alltypes::Single::ONLY;
}
inline void fill(alltypes::Primitives& v, Rng& r, Length l) {
  fill(v.o, r, l);
  fill(v.flag, r, l);
  fill(v.i64, r, l);
  fill(v.c, r, l);
  fill(v.i16, r, l);
  fill(v.i8, r, l);
  fill(v.i32, r, l);
  fill(v.u8, r, l);
  fill(v.d, r, l);
  fill(v.u16, r, l);
  fill(v.f, r, l);
  fill(v.u32, r, l);
  fill(v.u64, r, l);
}
inline void fill(alltypes::Point& v, Rng& r, Length l) {
  fill(v.x, r, l);
  fill(v.y, r, l);
}
inline void fill(alltypes::Empty& /*v*/, Rng& /*r*/, Length /*l*/) {}
inline void fill(alltypes::Segment& v, Rng& r, Length l) {
  fill(v.start, r, l);
  fill(v.end, r, l);
  fill(v.color, r, l);
  fill(v.nothing, r, l);
}
inline void fill(alltypes::Grid& v, Rng& r, Length l) {
  fill(v.tag, r, l);
  fill(v.cells, r, l);
  fill(v.rows, r, l);
  fill(v.corners, r, l);
  fill(v.labels, r, l);
  fill(v.flags, r, l);
  fill(v.colors, r, l);
}
inline void fill(alltypes::Collections& v, Rng& r, Length l) {
  fill(v.shortName, r, l);
  fill(v.name, r, l);
  fill(v.numbers, r, l);
  fill(v.blob, r, l);
  fill(v.bits, r, l);
  fill(v.points, r, l);
  fill(v.words, r, l);
  fill(v.matrix, r, l);
  fill(v.segments, r, l);
  fill(v.palette, r, l);
}
inline void fill(alltypes::Typedefs& v, Rng& r, Length l) {
  fill(v.count, r, l);
  fill(v.path, r, l);
  fill(v.velocity, r, l);
  fill(v.both, r, l);
  fill(v.vectors, r, l);
  fill(v.counts, r, l);
  fill(v.home, r, l);
}
inline void fill(alltypes::Overload& v, Rng& r, Length l) {
  fill(v.queued, r, l);
  fill(v.reason, r, l);
}
inline void fill(alltypes::Unavailable& /*v*/, Rng& /*r*/, Length /*l*/) {}
inline void fill(alltypes::Everything& v, Rng& r, Length l) {
  fill(v.primitives, r, l);
  fill(v.segment, r, l);
  fill(v.grid, r, l);
  fill(v.collections, r, l);
  fill(v.typedefs, r, l);
  fill(v.single, r, l);
}

inline void fill(ex::RoundTripRequest& v, Rng& r, Length l) {
  fill(v.sent, r, l);
  fill(v.hops, r, l);
}
inline void fill(ex::RoundTripReply& v, Rng& r, Length l) {
  fill(v.result_, r, l);
  fill(v.hops, r, l);
  fill(v.echoed, r, l);
}
inline void fill(ex::RoundTripException& v, Rng& r, Length l) {
  switch (l == Length::kFull ? 1 : r.below(3)) {
    case 1:
      fill(v.raised.emplace<1>(), r, l);
      break;
    case 2:
      v.raised.emplace<2>();
      break;
    default:
      v.raised.emplace<0>();
  }
}
inline void fill(ex::StoreRequest& v, Rng& r, Length l) {
  fill(v.path, r, l);
  fill(v.where, r, l);
}
inline void fill(ex::StoreReply& /*v*/, Rng& /*r*/, Length /*l*/) {}
inline void fill(ex::StoreException& v, Rng& r, Length l) {
  if (l == Length::kFull || r.below(2) == 1) {
    fill(v.raised.emplace<1>(), r, l);
  } else {
    v.raised.emplace<0>();
  }
}
inline void fill(ex::PickRequest& v, Rng& r, Length l) {
  fill(v.options, r, l);
}
inline void fill(ex::PickReply& v, Rng& r, Length l) {
  fill(v.result_, r, l);
  fill(v.picked, r, l);
}
inline void fill(ex::NotifyRequest& v, Rng& r, Length l) {
  fill(v.message, r, l);
  fill(v.color, r, l);
}
inline void fill(ex::CountRequest& /*v*/, Rng& /*r*/, Length /*l*/) {}
inline void fill(ex::CountReply& v, Rng& r, Length l) {
  fill(v.result_, r, l);
}

/// Calls `visit.operator()<T>(name, max_size, is_message)` for every type and message of the
/// model: `max_size` is the generated maximum, of a whole body for a message (starting at offset
/// 0) and wherever it starts for a model type.
template <typename Visit>
void for_each_type(Visit&& visit) {
  namespace max_size = ::alltypes::cdr::max_size;
  visit.template operator()<alltypes::Primitives>("Primitives", max_size::Primitives, false);
  visit.template operator()<alltypes::Point>("Point", max_size::Point, false);
  visit.template operator()<alltypes::Empty>("Empty", max_size::Empty, false);
  visit.template operator()<alltypes::Segment>("Segment", max_size::Segment, false);
  visit.template operator()<alltypes::Grid>("Grid", max_size::Grid, false);
  visit.template operator()<alltypes::Collections>("Collections", max_size::Collections, false);
  visit.template operator()<alltypes::Typedefs>("Typedefs", max_size::Typedefs, false);
  visit.template operator()<alltypes::Overload>("Overload", max_size::Overload, false);
  visit.template operator()<alltypes::Unavailable>("Unavailable", max_size::Unavailable, false);
  visit.template operator()<alltypes::Everything>("Everything", max_size::Everything, false);
  visit.template operator()<alltypes::Color>("Color", max_size::Color, false);
  visit.template operator()<alltypes::Single>("Single", max_size::Single, false);
  visit.template operator()<alltypes::Count>("Count", max_size::Count, false);
  visit.template operator()<alltypes::Path>("Path", max_size::Path, false);
  visit.template operator()<alltypes::Vector>("Vector", max_size::Vector, false);
  visit.template operator()<alltypes::Paths>("Paths", max_size::Paths, false);
  visit.template operator()<alltypes::Location>("Location", max_size::Location, false);
  visit.template operator()<ex::RoundTripRequest>("RoundTripRequest",
                                                  ex::RoundTripRequest::kMaxSize, true);
  visit.template operator()<ex::RoundTripReply>("RoundTripReply", ex::RoundTripReply::kMaxSize,
                                                true);
  visit.template operator()<ex::RoundTripException>("RoundTripException",
                                                    ex::RoundTripException::kMaxSize, true);
  visit.template operator()<ex::StoreRequest>("StoreRequest", ex::StoreRequest::kMaxSize, true);
  visit.template operator()<ex::StoreReply>("StoreReply", ex::StoreReply::kMaxSize, true);
  visit.template operator()<ex::StoreException>("StoreException", ex::StoreException::kMaxSize,
                                                true);
  visit.template operator()<ex::PickRequest>("PickRequest", ex::PickRequest::kMaxSize, true);
  visit.template operator()<ex::PickReply>("PickReply", ex::PickReply::kMaxSize, true);
  visit.template operator()<ex::NotifyRequest>("NotifyRequest", ex::NotifyRequest::kMaxSize, true);
  visit.template operator()<ex::CountRequest>("CountRequest", ex::CountRequest::kMaxSize, true);
  visit.template operator()<ex::CountReply>("CountReply", ex::CountReply::kMaxSize, true);
}

/// How many types for_each_type visits.
inline constexpr std::size_t kTypeCount = 28;

}  // namespace alltypes_values
