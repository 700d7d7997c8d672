// avionics/DisplayTMO.cpp — method bodies of TMO DisplayTMO (avionics.tmo).
#include "avionics/DisplayTMO.hpp"

namespace avionics {

void DisplayTMO::refresh(RefreshAccess ods) {
  // Stand-in for drawing the head-up display: one more frame, labelled with its number.
  auto& frame = ods.frame;
  ++frame.frames;
  frame.shown.leg = frame.frames % 16;
  frame.shown.label.assign(frame.frames % 2 == 0 ? "HUD even" : "HUD odd");
}

void DisplayTMO::status(StatusAccess ods) {
  // The status pages show how many frames the display drew; they only read the frame.
  pages_ = ods.frame.frames;
}

}  // namespace avionics
