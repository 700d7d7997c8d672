// avionics/DisplayTMO.cpp — method bodies of TMO DisplayTMO (avionics.tmo).
#include "avionics/DisplayTMO.hpp"

namespace avionics {

void DisplayTMO::refresh() {
  // Stand-in for drawing the head-up display: one more frame, labelled with its number.
  ++ods_.frame.frames;
  ods_.frame.shown.leg = ods_.frame.frames % 16;
  ods_.frame.shown.label.assign(ods_.frame.frames % 2 == 0 ? "HUD even" : "HUD odd");
}

void DisplayTMO::status() {
  // The status pages show how many frames the display drew since the last page.
  pages_ = ods_.frame.frames;
}

}  // namespace avionics
