// control/heater_control.cpp — see heater_control.hpp.
#include "heater_control.hpp"

namespace control {

namespace {
constexpr double kOutsideCelsius = 5.0;
constexpr double kLossPerSecond = 0.02;  // share of the difference to the outside lost per s
constexpr double kHeaterCelsiusPerSecond = 0.8;
constexpr double kHysteresisCelsius = 0.5;
}  // namespace

double next_temperature(double celsius, bool heating, double seconds) noexcept {
  const double loss = (celsius - kOutsideCelsius) * kLossPerSecond * seconds;
  const double gain = heating ? kHeaterCelsiusPerSecond * seconds : 0.0;
  return celsius - loss + gain;
}

bool should_heat(double celsius, double target, bool heating) noexcept {
  if (celsius < target - kHysteresisCelsius) {
    return true;
  }
  if (celsius > target + kHysteresisCelsius) {
    return false;
  }
  return heating;
}

}  // namespace control
