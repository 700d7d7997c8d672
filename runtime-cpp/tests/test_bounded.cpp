#include <catch2/catch.hpp>

#include <kairos/bounded.hpp>

TEST_CASE("bounded string refuses text beyond its capacity", "[unit][bounded]") {
  kairos::BoundedString<5> name;
  REQUIRE(name.assign("hello"));
  REQUIRE(name.view() == "hello");
  REQUIRE_FALSE(name.assign("hello!"));
  REQUIRE(name.view() == "hello");
}

TEST_CASE("bounded sequence refuses elements beyond its capacity", "[unit][bounded]") {
  kairos::BoundedSequence<int, 2> values;
  REQUIRE(values.push_back(1));
  REQUIRE(values.push_back(2));
  REQUIRE_FALSE(values.push_back(3));
  REQUIRE(values.size() == 2);
  REQUIRE(values[1] == 2);
  kairos::BoundedSequence<int, 2> copy = values;
  REQUIRE(copy == values);
}
