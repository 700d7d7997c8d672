// cell/ProbeTMO.hpp — method bodies of TMO ProbeTMO.
// Written once by kairos as a starting point; yours to edit. Never overwritten.
#pragma once

#include "cell/ProbeTMO.base.hpp"

namespace cell {

class ProbeTMO final : public ProbeTMOBase {
 private:
  // Called by the engine through ProbeTMOBase's private entry points, which lend each method the
  // segments it uses.
  void sample(SampleAccess ods) override;
  ::cell::Sample latest(LatestAccess ods) override;
};

}  // namespace cell
