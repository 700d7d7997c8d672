// cell/PanelTMO.cpp — method bodies of TMO PanelTMO (cell.tmo).
#include "cell/PanelTMO.hpp"

namespace cell {

void PanelTMO::refresh(RefreshAccess ods, RefreshGates gates) {
  // Shows the controller's setpoint (asked within 30 ms); a frame without an answer keeps the
  // last one shown.
  const auto setpoint = gates.control.setpoint();
  if (setpoint.ok()) {
    ods.shown.setpoint = setpoint.value();
  }
  ++ods.shown.frames;
}

}  // namespace cell
