// The time trigger's release cursor on its own: which activation is released next and when, from
// the rows alone and from a release table, with no clock and no threads.
#include "kairos_catch.hpp"

#include <array>
#include <cstdint>
#include <vector>

#include "release_cursor.hpp"

using namespace std::chrono_literals;
using kairos::ReleaseCursor;
using kairos::kal::Duration;
using kairos::kal::TimePoint;

namespace {
constexpr kairos::SpmEntry row(Duration first, Duration period, Duration window_open,
                               Duration last_release = kairos::kForever) {
  return kairos::SpmEntry{"test",
                          "m",
                          "test.tmo:1",
                          first,
                          last_release,
                          period,
                          window_open,
                          window_open + 1ms,
                          period + 5ms,
                          1ms,
                          kairos::Criticality::kHard,
                          1};
}

struct Released {
  std::size_t row;
  std::uint64_t sequence;
  Duration release;  ///< from the epoch
  friend bool operator==(const Released&, const Released&) = default;
};

const TimePoint kEpoch = TimePoint{} + 1s;

/// Everything the cursor releases, walking as the trigger does: to the earliest opening each time.
std::vector<Released> drain(ReleaseCursor& cursor) {
  std::vector<Released> out;
  for (int step = 0; step < 1000; ++step) {
    const TimePoint opening = cursor.earliest_opening();
    if (opening == TimePoint::max()) {
      break;
    }
    cursor.release_through(opening, [&](std::size_t r, std::uint64_t sequence, TimePoint release) {
      out.push_back({r, sequence, release - kEpoch});
    });
  }
  return out;
}
}  // namespace

TEST_CASE("the release cursor releases each row's activations in order of their start windows") {
  const std::array rows{row(0ms, 10ms, 1ms), row(2ms, 15ms, 0ms)};
  const std::array<const kairos::SpmEntry*, 2> pointers{&rows[0], &rows[1]};
  ReleaseCursor cursor(pointers, {}, Duration{}, kEpoch, kEpoch + 30ms);
  CHECK(cursor.next_opening(0) == kEpoch + 1ms);
  CHECK(cursor.next_opening(1) == kEpoch + 2ms);
  const std::vector<Released> expected{
      {0, 0, 0ms}, {1, 0, 2ms}, {0, 1, 10ms}, {1, 1, 17ms}, {0, 2, 20ms}};
  CHECK(drain(cursor) == expected);
  // Releases end with the run (the next ones, at 30 ms and 32 ms, are not before its end).
  CHECK(cursor.released(0) == 3);
  CHECK(cursor.released(1) == 2);
  CHECK(cursor.next_opening(0) == TimePoint::max());
}

TEST_CASE("the release cursor ends a row with its AAC, and releases a one-shot row once") {
  const std::array rows{row(5ms, 0ms, 0ms), row(0ms, 10ms, 0ms, 10ms)};
  const std::array<const kairos::SpmEntry*, 2> pointers{&rows[0], &rows[1]};
  ReleaseCursor cursor(pointers, {}, Duration{}, kEpoch, kEpoch + 1s);
  const std::vector<Released> expected{{1, 0, 0ms}, {0, 0, 5ms}, {1, 1, 10ms}};
  CHECK(drain(cursor) == expected);
}

TEST_CASE("the release cursor walks a release table in its order, cycle after cycle") {
  // Both rows open at 1 ms in each 10 ms: the table puts row 1 first, which row order would not.
  const std::array rows{row(0ms, 10ms, 1ms), row(0ms, 5ms, 1ms)};
  const std::array<const kairos::SpmEntry*, 2> pointers{&rows[0], &rows[1]};
  const std::array<kairos::ReleaseEntry, 3> table{{{1ms, 1}, {1ms, 0}, {6ms, 1}}};
  ReleaseCursor cursor(pointers, table, 10ms, kEpoch, kEpoch + 20ms);
  const std::vector<Released> expected{{1, 0, 0ms},  {0, 0, 0ms},  {1, 1, 5ms},
                                       {1, 2, 10ms}, {0, 1, 10ms}, {1, 3, 15ms}};
  CHECK(drain(cursor) == expected);
}

TEST_CASE("without a table the cursor releases a row at most once a call, as the trigger wakes") {
  const std::array rows{row(0ms, 1ms, 0ms)};
  const std::array<const kairos::SpmEntry*, 1> pointers{&rows[0]};
  ReleaseCursor cursor(pointers, {}, Duration{}, kEpoch, kEpoch + 1s);
  int calls = 0;
  cursor.release_through(kEpoch + 5ms, [&](std::size_t, std::uint64_t, TimePoint) { ++calls; });
  CHECK(calls == 1);
  CHECK(cursor.next_opening(0) == kEpoch + 1ms);
}
