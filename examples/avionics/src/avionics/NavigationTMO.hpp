// avionics/NavigationTMO.hpp — method bodies of TMO NavigationTMO (avionics.tmo).
#pragma once

#include "avionics/NavigationTMO.base.hpp"

namespace avionics {

class NavigationTMO final : public NavigationTMOBase {
 public:
  void update() override;
  ::avionics::NavState current() override;
  void setRoute(const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs) override;
  void nudge(double dlat, double dlon) override;
};

}  // namespace avionics
