// avionics/WeaponTMO.hpp — method bodies of TMO WeaponTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/WeaponTMO.base.hpp"

namespace avionics {

class WeaponTMO final : public WeaponTMOBase {
 private:
  void status(StatusAccess ods) override;
  void bit(BitAccess ods) override;

  ::std::uint32_t faults_ = 0;
};

}  // namespace avionics
