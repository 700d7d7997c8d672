// avionics/WeaponTMO.hpp — method bodies of TMO WeaponTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/WeaponTMO.base.hpp"

namespace avionics {

class WeaponTMO final : public WeaponTMOBase {
 public:
  void status() override;
  void bit() override;

 private:
  ::std::uint32_t faults_ = 0;
};

}  // namespace avionics
