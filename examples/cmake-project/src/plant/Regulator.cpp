// plant/Regulator.cpp — method bodies of TMO Regulator.
#include "plant/Regulator.hpp"

#include "heater_control.hpp"

namespace plant {

namespace {
constexpr double kStartCelsius = 16.0;
constexpr double kDefaultTarget = 20.0;
constexpr double kPeriodSeconds = 0.05;  // the SpM's period in the model
}  // namespace

void Regulator::regulate(RegulateAccess ods) {
  auto& room = ods.room;
  if (room.target == 0.0) {  // the first release: the object data store starts zeroed
    room.celsius = kStartCelsius;
    room.target = kDefaultTarget;
  }
  room.celsius = control::next_temperature(room.celsius, room.heating, kPeriodSeconds);
  room.heating = control::should_heat(room.celsius, room.target, room.heating);
}

double Regulator::temperature(TemperatureAccess ods) {
  return ods.room.celsius;
}

void Regulator::hold(HoldAccess ods, double celsius) {
  ods.room.target = celsius;
}

}  // namespace plant
