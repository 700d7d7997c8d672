// avionics/NavigationTMO.hpp — method bodies of TMO NavigationTMO (avionics.tmo).
#pragma once

#include "avionics/NavigationTMO.base.hpp"

namespace avionics {

class NavigationTMO final : public NavigationTMOBase {
 private:
  void update(UpdateAccess ods, UpdateChannels channels) override;
  ::avionics::NavState current(CurrentAccess ods) override;
  ::kairos::orb::Reply<void, ::avionics::Overload> setRoute(
      SetRouteAccess ods, const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) override;
  void nudge(NudgeAccess ods, double dlat, double dlon) override;
};

}  // namespace avionics
