// notes/Recorder.hpp — method bodies of TMO Recorder (oneway.tmo).
#pragma once

#include <cstdint>

#include "notes/Recorder.base.hpp"

namespace notes {

class Recorder final : public RecorderBase {
 private:
  void note(NoteAccess ods, ::std::uint32_t seq) override;
};

}  // namespace notes
