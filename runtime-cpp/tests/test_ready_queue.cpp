#include "kairos_catch.hpp"

#include <kairos/ready_queue.hpp>

TEST_CASE("the ready queue pops by key, FIFO among equal keys", "[unit][ready_queue]") {
  kairos::ReadyQueue<int, 8> queue;
  REQUIRE(queue.push({5, 0, 0}, 50));
  REQUIRE(queue.push({1, 0, 1}, 10));
  REQUIRE(queue.push({5, 0, 2}, 51));
  REQUIRE(queue.push({5, -3, 3}, 52));  // same primary, more important
  REQUIRE(queue.push({3, 0, 4}, 30));
  int out = 0;
  const int expected[] = {10, 30, 52, 50, 51};
  for (int value : expected) {
    REQUIRE(queue.pop(out));
    REQUIRE(out == value);
  }
  REQUIRE_FALSE(queue.pop(out));
}

TEST_CASE("the ready queue refuses to grow past its capacity", "[unit][ready_queue]") {
  kairos::ReadyQueue<int, 2> queue;
  REQUIRE(queue.push({1, 0, 0}, 1));
  REQUIRE(queue.push({2, 0, 1}, 2));
  REQUIRE_FALSE(queue.push({0, 0, 2}, 0));
  REQUIRE(queue.size() == 2);
}
