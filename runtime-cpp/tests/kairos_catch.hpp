// Catch2 as the tests use it, from either major release: v2 is one header (Debian 12's catch2
// 2.13), v3 a compiled library with a header per part (Debian 13's catch2 3.7). The few names that
// moved between them are given one spelling here.
#pragma once

#include <string>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>

using Catch::Approx;

namespace kairos_test {
/// A matcher of strings that contain `part`.
inline auto contains(const std::string& part) {
  return Catch::Matchers::ContainsSubstring(part);
}
}  // namespace kairos_test
#else
#include <catch2/catch.hpp>

namespace kairos_test {
/// A matcher of strings that contain `part`.
inline auto contains(const std::string& part) {
  return Catch::Matchers::Contains(part);
}
}  // namespace kairos_test
#endif
