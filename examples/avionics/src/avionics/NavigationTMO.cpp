// avionics/NavigationTMO.cpp — method bodies of TMO NavigationTMO (avionics.tmo).
#include "avionics/NavigationTMO.hpp"

namespace avionics {

void NavigationTMO::update() {
  // Dead reckoning towards the current leg's waypoint; advance when it is reached.
  NavState& nav = ods_.state.nav;
  ++ods_.state.updates;
  if (nav.route.size() == 0) {
    return;
  }
  const Waypoint& target = nav.route[nav.leg % nav.route.size()];
  const double step = ods_.cfg.mode == Mode::COMBAT ? 0.5 : 0.1;
  nav.lat += (target.lat - nav.lat) * step;
  nav.lon += (target.lon - nav.lon) * step;
  nav.alt = target.alt;
  const double remaining = (target.lat - nav.lat) * (target.lat - nav.lat) +
                           (target.lon - nav.lon) * (target.lon - nav.lon);
  if (remaining < 1e-6 && nav.leg + 1 < nav.route.size()) {
    ++nav.leg;
  }
}

::avionics::NavState NavigationTMO::current() {
  return ods_.state.nav;
}

void NavigationTMO::setRoute(const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) {
  ods_.state.nav.route = legs;
  ods_.state.nav.leg = 0;
}

void NavigationTMO::nudge(double dlat, double dlon) {
  ods_.state.nav.lat += dlat;
  ods_.state.nav.lon += dlon;
}

}  // namespace avionics
