// Simulated time: holding a ceiling lock raises the holder's band; nothing else is needed
// while every user of the lock runs on one processor with strict priorities, where a ceiling
// lock is never found taken (found taken from another processor, the kernel stops the program).
#pragma once

namespace kairos::kal::sim {
struct SimThread;
}

namespace kairos::kal {

struct NativeMutex {
  int saved_band = 0;
  int depth = 0;
  sim::SimThread* owner = nullptr;
};

}  // namespace kairos::kal
