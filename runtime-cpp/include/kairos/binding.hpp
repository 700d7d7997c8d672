// Binds methods of TMO servants to the engine's plain function pointers. Templates instead of
// generated wrapper functions: no names to collide, no virtual call beyond the servant's own.
#pragma once

#include <type_traits>

#include <kairos/engine.hpp>

namespace kairos {

/// MethodInvoker that calls `(servant->*Method)()` on a servant of type Tmo. Method may be a
/// member of a base of Tmo (the generated `run_<method>` entry points of `<Tmo>Base`).
template <typename Tmo, auto Method>
void invoke_spm(void* servant) {
  static_assert(std::is_invocable_v<decltype(Method), Tmo&>,
                "Method must be a member function of Tmo (or a base) taking no arguments");
  (static_cast<Tmo*>(servant)->*Method)();
}

/// MissHandler that forwards to the servant's `on_deadline_miss`.
template <typename Tmo>
void forward_miss(void* servant, const MissReport& miss) noexcept {
  static_cast<Tmo*>(servant)->on_deadline_miss(miss);
}

}  // namespace kairos
