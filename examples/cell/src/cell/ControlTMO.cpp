// cell/ControlTMO.cpp — method bodies of TMO ControlTMO (cell.tmo).
#include "cell/ControlTMO.hpp"

namespace cell {

void ControlTMO::adjust(AdjustAccess ods, AdjustGates gates) {
  // Reads the sensor through its gate (within 4 ms) and moves the setpoint a tenth of the way
  // toward it; without an answer the setpoint stays where it is.
  const auto reading = gates.probe.latest();
  if (reading.ok()) {
    ods.loop.seen = reading.value();
    ods.loop.setpoint += (reading.value().value - ods.loop.setpoint) * 0.1;
  }
}

double ControlTMO::setpoint(SetpointAccess ods) {
  return ods.loop.setpoint;
}

}  // namespace cell
