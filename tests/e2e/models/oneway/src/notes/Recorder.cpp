// notes/Recorder.cpp — method bodies of TMO Recorder (oneway.tmo).
#include "notes/Recorder.hpp"

#include <cstdio>

namespace notes {

void Recorder::note(NoteAccess ods, ::std::uint32_t seq) {
  // The source numbers its notes from 1: anything else did not come from it.
  if (seq == 0) {
    ::std::printf("recorder: a note without a sequence number\n");
  }
  ++ods.notes.count;
  ods.notes.last = seq;
}

}  // namespace notes
