// avionics/DisplayTMO.hpp — method bodies of TMO DisplayTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/DisplayTMO.base.hpp"

namespace avionics {

class DisplayTMO final : public DisplayTMOBase {
 private:
  void refresh(RefreshAccess ods) override;
  void status(StatusAccess ods) override;

  ::std::uint32_t pages_ = 0;
};

}  // namespace avionics
