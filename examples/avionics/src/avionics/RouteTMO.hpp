// avionics/RouteTMO.hpp — method bodies of TMO RouteTMO (avionics.tmo).
#pragma once

#include <cstddef>
#include <cstdint>

#include "avionics/RouteTMO.base.hpp"

namespace avionics {

class RouteTMO final : public RouteTMOBase {
 private:
  void replan(ReplanAccess ods, ReplanGates gates) override;
  void log(LogAccess ods) override;

  ::std::uint64_t passes_ = 0;
  ::std::size_t logged_legs_ = 0;
};

}  // namespace avionics
