// The lock exchange's diagnostics of a run (model/lock_exchange_diagnostics.hpp).
#include "model/lock_exchange_diagnostics.hpp"

#include <fmt/format.h>

#include "model/flow_simulation.hpp"

namespace bouss {

LockDiagnostics lock_diagnostics(const Simulation& sim, const Lock& lock) {
  return with_flow(sim, [&](const auto& flow) {
    return lock_diagnostics(flow.grid(), flow.flow(), flow.coefficients(), lock);
  });
}

void energy_rates_into(const Simulation& sim, EnergyRates* out) {
  with_flow(sim, [&](const auto& flow) {
    energy_rates_into(flow.grid(), flow.flow(), flow.coefficients(), flow.unknowns(), out);
  });
}

LockExchangeSeries::LockExchangeSeries(const Simulation& sim, const Lock& lock)
    : lock_(lock), budget_(sim, lock) {}

const std::vector<DiagnosticInfo>& LockExchangeSeries::info() const {
  // The energies are volume integrals per unit density.
  static const std::vector<DiagnosticInfo> info = {
      {"front_floor", "x of the dense current's front along the floor", "m"},
      {"front_lid", "x of the light current's front along the lid", "m"},
      {"front_floor_travelled", "distance the floor front has travelled from the lock", "m", "front distance from the lock"},
      {"front_lid_travelled", "distance the lid front has travelled from the lock", "m", "front distance from the lock"},
      {"total_heat", "heat content, the integral of T over the volume", "K m3"},
      {"kinetic_energy_total", "kinetic energy, the integral of |u|^2 / 2 over the volume", "m5 s-2", "energy budget"},
      {"potential_energy", "potential energy, -b_T times the integral of (T - T_ref) z over the volume", "m5 s-2", "energy budget"},
      {"dissipation", "cumulative viscous dissipation, the time integral of epsilon", "m5 s-2", "energy budget"},
      {"conversion", "cumulative diffusive conversion of internal into potential energy, the time integral of phi_d",
       "m5 s-2", "energy budget"},
      {"energy_residual", "E - E(0) with E = KE + PE + dissipation - conversion (absolute)", "m5 s-2"},
      {"T_min", "minimum of T over the cells", "K"},
      {"T_max", "maximum of T over the cells", "K"},
  };
  return info;
}

void LockExchangeSeries::start(const Simulation& sim) { budget_.start(sim, lock_diagnostics(sim, lock_)); }

bool LockExchangeSeries::restore(const Simulation& sim, const std::map<std::string, double>& state) {
  (void)sim;
  return budget_.restore(state);
}

void LockExchangeSeries::record(const Simulation& sim, std::map<std::string, double>& r) {
  const LockDiagnostics l = lock_diagnostics(sim, lock_);
  const EnergyBudget::Values budget = budget_.values(l);
  r["front_floor"] = l.fronts.floor_x;
  r["front_lid"] = l.fronts.lid_x;
  r["front_floor_travelled"] = l.fronts.floor_travelled;
  r["front_lid_travelled"] = l.fronts.lid_travelled;
  r["total_heat"] = l.temperature.heat;
  r["kinetic_energy_total"] = l.kinetic_energy;
  r["potential_energy"] = l.temperature.potential_energy;
  r["dissipation"] = budget.dissipation;
  r["conversion"] = budget.conversion;
  r["energy_residual"] = budget.energy_residual;
  r["T_min"] = l.temperature.T_min;
  r["T_max"] = l.temperature.T_max;
}

std::string LockExchangeSeries::progress(const Simulation& sim) const {
  const LockDiagnostics l = lock_diagnostics(sim, lock_);
  return fmt::format("  fronts {:+.4f} {:+.4f}  heat drift {:.1e}", l.fronts.floor_travelled, l.fronts.lid_travelled,
                     budget_.heat_drift(l));
}

std::unique_ptr<CaseDiagnostics> lock_exchange_diagnostics(const Simulation& sim) {
  if (!is_lock_exchange(sim.config())) return nullptr;
  return std::make_unique<LockExchangeSeries>(sim, lock_of(sim.config()));
}

}  // namespace bouss
