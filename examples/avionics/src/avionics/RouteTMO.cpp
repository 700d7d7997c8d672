// avionics/RouteTMO.cpp — method bodies of TMO RouteTMO (avionics.tmo).
#include "avionics/RouteTMO.hpp"

namespace avionics {

void RouteTMO::replan(ReplanAccess ods, ReplanGates gates) {
  // Stand-in for route planning: a fixed four-leg pattern, shifted a little on every pass, flown
  // at an altitude above the terrain that mission2's sensor reports through the gate (within its
  // 5 ms; without an answer the last terrain reading stands).
  const auto terrain = gates.sensors.sample(static_cast<::std::uint8_t>(passes_ % 4));
  if (terrain.ok()) {
    ods.plan.terrain = terrain.value();
  }
  const float altitude = 3000.0F + static_cast<float>(ods.plan.terrain.value) * 100.0F;
  auto& legs = ods.plan.legs;
  legs.clear();
  ++passes_;
  const double shift = static_cast<double>(passes_ % 100) * 0.001;
  for (int leg = 0; leg < 4; ++leg) {
    legs.push_back(Waypoint{47.0 + leg * 0.1 + shift, 8.0 + leg * 0.1, altitude});
  }
}

void RouteTMO::log(LogAccess ods) {
  // Once a second: remember how long the plan was (a flight recorder would store it).
  logged_legs_ = ods.plan.legs.size();
}

}  // namespace avionics
