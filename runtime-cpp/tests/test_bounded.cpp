#include "kairos_catch.hpp"

#include <kairos/bounded.hpp>

TEST_CASE("bounded string refuses text beyond its capacity", "[unit][bounded]") {
  kairos::BoundedString<5> name;
  REQUIRE(name.assign("hello"));
  REQUIRE(name.view() == "hello");
  REQUIRE_FALSE(name.assign("hello!"));
  REQUIRE(name.view() == "hello");
}

TEST_CASE("bounded string starts with the text it is made from", "[unit][bounded]") {
  static constexpr kairos::BoundedString<5> label{"idle"};
  STATIC_REQUIRE(label.size() == 4);
  REQUIRE(label.view() == "idle");
  constexpr kairos::BoundedString<5> full{"hello"};
  REQUIRE(full.view() == "hello");
  constexpr kairos::BoundedString<5> empty{""};
  REQUIRE(empty.size() == 0);
  static constexpr std::string_view kName = "kai";
  constexpr kairos::BoundedString<5> named{kName};
  REQUIRE(named.view() == "kai");
  constexpr kairos::BoundedString<2> refused{kName};
  REQUIRE(refused.size() == 0);
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
