// Simulated time: holding a ceiling lock raises the holder's band; nothing else is needed on
// one processor with strict priorities, where a ceiling lock is never found taken.
#pragma once

namespace kairos::kal {

struct NativeMutex {
  int saved_band = 0;
  int depth = 0;
};

}  // namespace kairos::kal
