// cell/ControlTMO.hpp — method bodies of TMO ControlTMO.
// Written once by kairos as a starting point; yours to edit. Never overwritten.
#pragma once

#include "cell/ControlTMO.base.hpp"

namespace cell {

class ControlTMO final : public ControlTMOBase {
 private:
  // Called by the engine through ControlTMOBase's private entry points, which lend each method the
  // segments it uses.
  void adjust(AdjustAccess ods, AdjustGates gates) override;
  double setpoint(SetpointAccess ods) override;
};

}  // namespace cell
