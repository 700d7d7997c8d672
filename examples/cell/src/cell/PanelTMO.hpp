// cell/PanelTMO.hpp — method bodies of TMO PanelTMO.
// Written once by kairos as a starting point; yours to edit. Never overwritten.
#pragma once

#include "cell/PanelTMO.base.hpp"

namespace cell {

class PanelTMO final : public PanelTMOBase {
 private:
  // Called by the engine through PanelTMOBase's private entry points, which lend each method the
  // segments it uses.
  void refresh(RefreshAccess ods, RefreshGates gates) override;
};

}  // namespace cell
