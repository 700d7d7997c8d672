// The project's own code beside the generated node: a room that warms and cools, and the rule
// that switches its heater. CMakeLists.txt holds it to Kairos's strict warnings.
#pragma once

namespace control {

/// The room's temperature after `seconds` with the heater on or off: it loses heat towards the
/// outside in proportion to the difference, and gains the heater's power while it runs.
double next_temperature(double celsius, bool heating, double seconds) noexcept;

/// Whether the heater runs next: on below the target, off above it, with half a degree of
/// hysteresis either side so that it does not chatter around the target.
bool should_heat(double celsius, double target, bool heating) noexcept;

}  // namespace control
