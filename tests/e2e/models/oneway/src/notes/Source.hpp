// notes/Source.hpp — method bodies of TMO Source (oneway.tmo).
#pragma once

#include "notes/Source.base.hpp"

namespace notes {

class Source final : public SourceBase {
 private:
  void tick(TickAccess ods, TickGates gates) override;

  bool warned_ = false;
};

}  // namespace notes
