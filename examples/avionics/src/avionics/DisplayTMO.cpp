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
  // The status pages show how many frames the display drew and how many tracks the tracker
  // last reported; they only read both.
  pages_ = ods.frame.frames;
  tracks_shown_ = ods.threats.tracks;
}

void DisplayTMO::survey(SurveyAccess ods, SurveyGates gates) {
  // Asks mission2's tracker for its picture through the gate (within 40 ms); without an answer
  // the pages show no tracks rather than stale ones.
  const auto picture = gates.tracking.tracks();
  ods.threats.tracks = picture.ok() ? static_cast<::std::uint32_t>(picture.value().size()) : 0;
}

}  // namespace avionics
