// rates/Cruncher.hpp — method bodies of TMO Cruncher (rates.tmo).
#pragma once

#include "rates/Cruncher.base.hpp"

namespace rates {

class Cruncher final : public CruncherBase {
 private:
  // Called by the engine through CruncherBase's private entry points, which lend each method the
  // segments it uses.
  void crunch(CrunchAccess ods) override;
};

}  // namespace rates
