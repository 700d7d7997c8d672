// avionics/WeaponTMO.cpp — method bodies of TMO WeaponTMO (avionics.tmo).
#include "avionics/WeaponTMO.hpp"

namespace avionics {

void WeaponTMO::status() {
  // Stand-in for polling the stores: one store armed per pass, up to four, in combat mode only.
  if (ods_.stores.mode == Mode::COMBAT && ods_.stores.armed < 4) {
    ++ods_.stores.armed;
  }
}

void WeaponTMO::bit() {
  // Built-in test: a store count above the four stations is a fault.
  if (ods_.stores.armed > 4) {
    ++faults_;
  }
}

}  // namespace avionics
