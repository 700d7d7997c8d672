// plant/Regulator.hpp — method bodies of TMO Regulator (thermostat.tmo:12).
#pragma once

#include "plant/Regulator.base.hpp"

namespace plant {

class Regulator final : public RegulatorBase {
 private:
  // Called by the engine through RegulatorBase's private entry points, which lend each method the
  // segments it uses: `regulate` and `hold` may write the room, `temperature` only read it.
  void regulate(RegulateAccess ods) override;
  double temperature(TemperatureAccess ods) override;
  void hold(HoldAccess ods, double celsius) override;
};

}  // namespace plant
