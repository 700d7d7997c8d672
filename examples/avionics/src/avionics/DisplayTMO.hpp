// avionics/DisplayTMO.hpp — method bodies of TMO DisplayTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/DisplayTMO.base.hpp"

namespace avionics {

class DisplayTMO final : public DisplayTMOBase {
 private:
  void refresh(RefreshAccess ods) override;
  void status(StatusAccess ods) override;
  void survey(SurveyAccess ods, SurveyGates gates) override;

  ::std::uint32_t pages_ = 0;
  ::std::uint32_t tracks_shown_ = 0;
};

}  // namespace avionics
