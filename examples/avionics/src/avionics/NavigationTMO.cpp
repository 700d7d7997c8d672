// avionics/NavigationTMO.cpp — method bodies of TMO NavigationTMO (avionics.tmo).
#include "avionics/NavigationTMO.hpp"

#include <algorithm>

namespace avionics {

void NavigationTMO::update(UpdateAccess ods) {
  // Dead reckoning towards the current leg's waypoint; advance when it is reached. The mode
  // comes from cfg, which this method only reads. The altitude sensor is on mission2: read it
  // through the gate, within the gate's 5 ms, and keep the last altitude when no answer came.
  NavState& nav = ods.state.nav;
  ++ods.state.updates;
  const auto altitude = gates_.sensors.sample(static_cast<::std::uint8_t>(ods.state.updates % 4));
  if (altitude.ok()) {
    nav.alt = static_cast<float>(altitude.value().value);
  }
  if (nav.route.size() == 0) {
    return;
  }
  const Waypoint& target = nav.route[nav.leg % nav.route.size()];
  const double step = ods.cfg.mode == Mode::COMBAT ? 0.5 : 0.1;
  nav.lat += (target.lat - nav.lat) * step;
  nav.lon += (target.lon - nav.lon) * step;
  const double remaining = (target.lat - nav.lat) * (target.lat - nav.lat) +
                           (target.lon - nav.lon) * (target.lon - nav.lon);
  if (remaining < 1e-6 && nav.leg + 1 < nav.route.size()) {
    ++nav.leg;
  }
}

::avionics::NavState NavigationTMO::current(CurrentAccess ods) {
  return ods.state.nav;
}

::kairos::orb::Reply<void, ::avionics::Overload> NavigationTMO::setRoute(
    SetRouteAccess ods, const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) {
  // A route is refused while the current one still has legs to fly: the caller learns how many.
  const ::std::uint32_t left =
      static_cast<::std::uint32_t>(ods.state.nav.route.size()) -
      ::std::min(ods.state.nav.leg, static_cast<::std::uint32_t>(ods.state.nav.route.size()));
  if (left > 1) {
    return Overload{left};
  }
  ods.state.nav.route = legs;
  ods.state.nav.leg = 0;
  return {};
}

void NavigationTMO::nudge(NudgeAccess ods, double dlat, double dlon) {
  ods.state.nav.lat += dlat;
  ods.state.nav.lon += dlon;
}

}  // namespace avionics
