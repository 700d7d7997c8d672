// avionics/NavigationTMO.cpp — method bodies of TMO NavigationTMO (avionics.tmo).
#include "avionics/NavigationTMO.hpp"

namespace avionics {

void NavigationTMO::update(UpdateAccess ods, UpdateChannels channels) {
  // Dead reckoning towards the current leg's waypoint; advance when it is reached. The mode
  // comes from cfg, which this method only reads. Each update is published on the `track`
  // channel (it never waits: the channel hub sends it on below every lane).
  NavState& nav = ods.state.nav;
  ++ods.state.updates;
  if (nav.route.size() == 0) {
    channels.track.publish(nav);
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
  channels.track.publish(nav);
}

::avionics::NavState NavigationTMO::current(CurrentAccess ods) {
  return ods.state.nav;
}

::kairos::orb::Reply<void, ::avionics::Overload> NavigationTMO::setRoute(
    SetRouteAccess ods, const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) {
  // A new route is refused while the current one still has legs to fly: the caller learns how
  // many, from the declared exception.
  const auto route = static_cast<::std::uint32_t>(ods.state.nav.route.size());
  const ::std::uint32_t left = ods.state.nav.leg < route ? route - ods.state.nav.leg : 0;
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
