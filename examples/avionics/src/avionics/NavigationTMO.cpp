// avionics/NavigationTMO.cpp — method bodies of TMO NavigationTMO (avionics.tmo).
#include "avionics/NavigationTMO.hpp"

namespace avionics {

void NavigationTMO::update(UpdateAccess ods) {
  // Dead reckoning towards the current leg's waypoint; advance when it is reached. The mode
  // comes from cfg, which this method only reads.
  NavState& nav = ods.state.nav;
  ++ods.state.updates;
  if (nav.route.size() == 0) {
    return;
  }
  const Waypoint& target = nav.route[nav.leg % nav.route.size()];
  const double step = ods.cfg.mode == Mode::COMBAT ? 0.5 : 0.1;
  nav.lat += (target.lat - nav.lat) * step;
  nav.lon += (target.lon - nav.lon) * step;
  nav.alt = target.alt;
  const double remaining = (target.lat - nav.lat) * (target.lat - nav.lat) +
                           (target.lon - nav.lon) * (target.lon - nav.lon);
  if (remaining < 1e-6 && nav.leg + 1 < nav.route.size()) {
    ++nav.leg;
  }
}

::avionics::NavState NavigationTMO::current(CurrentAccess ods) {
  return ods.state.nav;
}

void NavigationTMO::setRoute(SetRouteAccess ods,
                             const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) {
  ods.state.nav.route = legs;
  ods.state.nav.leg = 0;
}

void NavigationTMO::nudge(NudgeAccess ods, double dlat, double dlon) {
  ods.state.nav.lat += dlat;
  ods.state.nav.lon += dlon;
}

}  // namespace avionics
