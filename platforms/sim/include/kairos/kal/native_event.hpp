// Simulated time: an event is a flag and the thread (if any) blocked on it.
#pragma once

namespace kairos::kal::sim {
struct SimThread;
}

namespace kairos::kal {

struct NativeEvent {
  bool set = false;
  sim::SimThread* waiter = nullptr;
};

}  // namespace kairos::kal
