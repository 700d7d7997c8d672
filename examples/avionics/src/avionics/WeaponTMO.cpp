// avionics/WeaponTMO.cpp — method bodies of TMO WeaponTMO (avionics.tmo).
#include "avionics/WeaponTMO.hpp"

namespace avionics {

void WeaponTMO::status(StatusAccess ods) {
  // Stand-in for polling the stores: one store armed per pass, up to four, in combat mode only.
  auto& stores = ods.stores;
  if (stores.mode == Mode::COMBAT && stores.armed < 4) {
    ++stores.armed;
  }
}

void WeaponTMO::bit(BitAccess ods) {
  // Built-in test, read-only: a store count above the four stations is a fault.
  if (ods.stores.armed > 4) {
    ++faults_;
  }
}

}  // namespace avionics
