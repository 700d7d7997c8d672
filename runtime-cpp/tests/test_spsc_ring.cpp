#include "kairos_catch.hpp"

#include <cstdint>
#include <thread>

#include <kairos/spsc_ring.hpp>

TEST_CASE("spsc ring keeps FIFO order and reports full and empty", "[unit][spsc_ring]") {
  kairos::SpscRing<int, 4> ring;
  int out = 0;
  REQUIRE_FALSE(ring.try_pop(out));
  for (int i = 0; i < 4; ++i) {
    REQUIRE(ring.try_push(i));
  }
  REQUIRE_FALSE(ring.try_push(99));
  for (int i = 0; i < 4; ++i) {
    REQUIRE(ring.try_pop(out));
    REQUIRE(out == i);
  }
  REQUIRE(ring.empty());
}

TEST_CASE("spsc ring lets the consumer look before it takes", "[unit][spsc_ring]") {
  kairos::SpscRing<int, 2> ring;
  REQUIRE(ring.front() == nullptr);
  REQUIRE(ring.try_push(7));
  REQUIRE(ring.try_push(8));
  REQUIRE(*ring.front() == 7);
  REQUIRE(*ring.front() == 7);  // still there
  ring.drop_front();
  REQUIRE(*ring.front() == 8);
  REQUIRE(ring.try_push(9));  // the slot it left is free again
  ring.drop_front();
  REQUIRE(*ring.front() == 9);
  ring.drop_front();
  REQUIRE(ring.empty());
}

TEST_CASE("spsc ring hands every value across threads exactly once, in order",
          "[integration][spsc_ring]") {
  kairos::SpscRing<std::uint32_t, 64> ring;
  constexpr std::uint32_t kCount = 200'000;
  std::thread producer([&] {
    for (std::uint32_t i = 0; i < kCount;) {
      if (ring.try_push(i)) {
        ++i;
      }
    }
  });
  std::uint32_t expected = 0;
  std::uint32_t value = 0;
  while (expected < kCount) {
    if (ring.try_pop(value)) {
      REQUIRE(value == expected);
      ++expected;
    }
  }
  producer.join();
  REQUIRE(ring.empty());
}
