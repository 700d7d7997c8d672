// The channel transport figure, measured through Eclipse Cyclone DDS (runtime-cpp/tools/
// probe_dds.cpp): the library Kairos::probe_dds, built and installed where Cyclone DDS is, for
// kairos-probe and for the `--probe` of a node whose channels cross DDS.
#pragma once

#include <kairos/probe.hpp>

namespace kairos::probe {

/// Times 2,000 samples (after 100 to warm up) through Cyclone DDS from a writer in this process
/// to a reader's listener in a child process, both at the lowest real-time band on `cpu`:
/// kOk with `out` filled; kUnavailable when the two did not discover each other within 10 s or
/// the reader missed samples; kPlatformError when a process or a write failed.
kal::Status dds_transport(const ProbeOptions& options, int cpu, Distribution& out) noexcept;

}  // namespace kairos::probe
