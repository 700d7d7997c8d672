#include "kairos_catch.hpp"

#include <cstdint>
#include <random>
#include <vector>

#include <kairos/arrival_budget.hpp>

TEST_CASE("an arrival budget takes one arrival per interval, each at most its tolerance early",
          "[unit][arrival_budget]") {
  kairos::ArrivalBudget budget{100, 30};
  REQUIRE(budget.limited());
  REQUIRE(budget.take(1'000));        // the first: its turn is now; the next's at 1100
  REQUIRE_FALSE(budget.take(1'069));  // 31 early
  REQUIRE(budget.take(1'070));        // 30 early; the next's turn at 1200
  REQUIRE_FALSE(budget.take(1'169));
  REQUIRE(budget.take(1'500));  // late: the turns start again from it
  REQUIRE_FALSE(budget.take(1'569));
  REQUIRE(budget.take(1'570));
}

TEST_CASE("no budget takes every arrival", "[unit][arrival_budget]") {
  kairos::ArrivalBudget none;
  REQUIRE_FALSE(none.limited());
  for (std::int64_t t = 0; t < 100; ++t) {
    REQUIRE(none.take(t));
  }
}

TEST_CASE("an arrival budget never takes more than (w + tolerance) / interval + 1 within any w",
          "[unit][arrival_budget]") {
  constexpr std::int64_t kInterval = 1'000;
  constexpr std::int64_t kTolerance = 2'500;
  kairos::ArrivalBudget budget{kInterval, kTolerance};
  std::mt19937_64 random{7};
  std::uniform_int_distribution<std::int64_t> gap{0, 1'500};
  std::vector<std::int64_t> taken;
  std::int64_t now = 0;
  for (int i = 0; i < 20'000; ++i) {
    now += gap(random);
    if (budget.take(now)) {
      taken.push_back(now);
    }
  }
  REQUIRE(taken.size() > 1'000);
  for (const std::int64_t window : {0LL, 1LL, 999LL, 1'000LL, 4'321LL, 50'000LL}) {
    // Arrivals at most w apart, first and last included: floor((w + tolerance) / interval) + 1.
    const std::int64_t most = (window + kTolerance) / kInterval + 1;
    std::size_t first = 0;
    for (std::size_t last = 0; last < taken.size(); ++last) {
      while (taken[last] - taken[first] > window) {
        ++first;
      }
      REQUIRE(static_cast<std::int64_t>(last - first + 1) <= most);
    }
  }
}
