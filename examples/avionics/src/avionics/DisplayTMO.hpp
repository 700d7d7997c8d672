// avionics/DisplayTMO.hpp — method bodies of TMO DisplayTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/DisplayTMO.base.hpp"

namespace avionics {

class DisplayTMO final : public DisplayTMOBase {
 public:
  void refresh() override;
  void status() override;

 private:
  ::std::uint32_t pages_ = 0;
};

}  // namespace avionics
