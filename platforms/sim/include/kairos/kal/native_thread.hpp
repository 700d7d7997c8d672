// Simulated time: a thread is a pthread scheduled by the simulation kernel.
#pragma once

namespace kairos::kal::sim {
struct SimThread;
}

namespace kairos::kal {

struct NativeThread {
  sim::SimThread* thread = nullptr;
};

}  // namespace kairos::kal
