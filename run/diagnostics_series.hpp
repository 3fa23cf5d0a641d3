// The diagnostics series of a run: one record every few steps (and at the start and the
// end) of the scalar diagnostics, and the growth rate of the kinetic energy since the
// previous record, sigma = d ln(KE) / dt / 2 (KE grows as exp(2 sigma t)).
#pragma once

#include <cmath>
#include <map>
#include <string>

#include "model/energy_budget.hpp"
#include "model/simulation.hpp"

namespace bouss {

// A lock exchange's part of a record: the state's fronts, heat and energies, and the budget's
// integrals up to it.
struct LockRecord {
  LockDiagnostics state;
  EnergyBudget::Values budget;
};

class DiagnosticsSeries {
 public:
  // The record of the state `d` at `time`: kinetic_energy, max_divergence, max_velocity,
  // dt, pressure_cycles, growth_rate, between fixed-temperature plates the Nusselt numbers,
  // and with `lock` (a lock exchange) front_floor, front_lid, front_floor_travelled,
  // front_lid_travelled, total_heat, kinetic_energy_total, potential_energy, dissipation,
  // conversion, energy_residual, T_min and T_max (docs/output.md). Advances the growth-rate
  // reference to this record.
  std::map<std::string, double> record(double time, const Diagnostics& d, double dt, int pressure_cycles,
                                       bool plates, const LockRecord* lock = nullptr);
  double growth_rate() const { return growth_; }
  // The latest record's diagnostics (for progress lines).
  const Diagnostics& latest() const { return latest_; }

  // What a checkpoint stores to continue the series bit for bit (named doubles).
  std::map<std::string, double> state() const;
  void restore(const std::map<std::string, double>& state);

 private:
  double last_energy_ = 0, last_time_ = 0, growth_ = NAN;
  Diagnostics latest_;
};

}  // namespace bouss
