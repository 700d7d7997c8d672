// gatewait/Client.hpp — method bodies of TMO Client (gatewait.tmo).
#pragma once

#include "gatewait/Client.base.hpp"

namespace gatewait {

class Client final : public ClientBase {
 private:
  // Called by the engine through ClientBase's private entry points, which lend each method the
  // segments it uses.
  void work(WorkAccess ods, WorkGates gates) override;
};

}  // namespace gatewait
