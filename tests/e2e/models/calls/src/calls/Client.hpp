// calls/Client.hpp — method bodies of TMO Client (calls.tmo).
#pragma once

#include <cstdint>

#include "calls/Client.base.hpp"

namespace calls {

class Client final : public ClientBase {
 public:
  /// Prints what the gates' answered calls brought, once, when the node ends. (`final`, not
  /// `override`: kairos generate reads `Name(...) override` in this header as a modelled method.)
  ~Client() final;

 private:
  /// What one gate's answered calls brought, as checked here.
  struct Tally {
    ::std::uint32_t values = 0;  ///< results
    ::std::uint32_t raised = 0;  ///< Missing, the declared exception
  };

  void poll(PollAccess ods, PollGates gates) override;
  /// Checks one call's outcome for `key` (its out argument `version`) and counts it in `tally`.
  template <typename Outcome>
  void check(const Outcome& outcome, ::std::uint8_t key, ::std::uint32_t version, Tally& tally);

  ::kairos::orb::PendingCall pending_{};  ///< the non-blocking call the last activation started
  ::std::uint8_t pending_key_ = 0;
  ::std::uint32_t polls_ = 0;  ///< activations so far: the key of each is the next of 0..6
  Tally blocking_{};
  Tally async_{};
  ::std::uint32_t wrong_ = 0;  ///< results that did not answer their request, or had no right to
  ::std::uint32_t wrong_key_ = 0;  ///< Missing for another key than the one called, or untyped
  bool told_ = false;              ///< whether the first wrong outcome was printed
};

}  // namespace calls
