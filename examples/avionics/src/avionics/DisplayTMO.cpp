// avionics/DisplayTMO.cpp — method bodies of TMO DisplayTMO (avionics.tmo).
#include "avionics/DisplayTMO.hpp"

namespace avionics {

void DisplayTMO::refresh(RefreshAccess ods) {
  // Stand-in for drawing the head-up display: one more frame, labelled with its number and the
  // number of tracks mission2's tracker reports through the gate (within its 40 ms).
  auto& frame = ods.frame;
  ++frame.frames;
  frame.shown.leg = frame.frames % 16;
  const auto picture = gates_.tracking.tracks();
  const bool even = frame.frames % 2 == 0;
  if (!picture.ok()) {
    frame.shown.label.assign(even ? "HUD even, no tracks" : "HUD odd, no tracks");
  } else if (picture.value().size() == 0) {
    frame.shown.label.assign(even ? "HUD even, clear" : "HUD odd, clear");
  } else {
    frame.shown.label.assign(even ? "HUD even, tracking" : "HUD odd, tracking");
  }
}

void DisplayTMO::status(StatusAccess ods) {
  // The status pages show how many frames the display drew; they only read the frame.
  pages_ = ods.frame.frames;
}

}  // namespace avionics
