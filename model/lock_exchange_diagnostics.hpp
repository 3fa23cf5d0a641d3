// The lock exchange's diagnostics of a run (physics/lock_exchange.hpp): the state's fronts,
// heat and energies computed on the simulation's own fields, and the series diagnostics the
// lock exchange registers (model/diagnostics.hpp case_diagnostics) for every case whose
// initial temperature profile is "lock": the fronts, heat, energies and the energy budget's
// integrals (model/energy_budget.hpp), with its state in checkpoints.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/energy_budget.hpp"
#include "physics/lock_exchange.hpp"

namespace bouss {

// The fronts, heat, potential and kinetic energy of the simulation's current state, returned
// to the host.
LockDiagnostics lock_diagnostics(const Simulation& sim, const Lock& lock);
// The energy budget's rates of the current state into *out (backend memory), queued on the
// backend's stream without waiting (read it through an AsyncValue).
void energy_rates_into(const Simulation& sim, EnergyRates* out);

class LockExchangeSeries final : public CaseDiagnostics {
 public:
  LockExchangeSeries(const Simulation& sim, const Lock& lock);
  // front_floor, front_lid, front_floor_travelled, front_lid_travelled, total_heat,
  // kinetic_energy_total, potential_energy, dissipation, conversion, energy_residual, T_min,
  // T_max (docs/output.md).
  const std::vector<DiagnosticInfo>& info() const override;
  void start(const Simulation& sim) override;
  bool restore(const Simulation& sim, const std::map<std::string, double>& state) override;
  void advance(const Simulation& sim) override { budget_.advance(sim); }
  void record(const Simulation& sim, std::map<std::string, double>& values) override;
  // Each front's distance travelled from the lock (floor, lid) and the heat's drift.
  std::string progress(const Simulation& sim) const override;
  std::map<std::string, double> state() override { return budget_.state(); }

  const Lock& lock() const { return lock_; }
  EnergyBudget& budget() { return budget_; }

 private:
  Lock lock_;
  EnergyBudget budget_;
};

// The lock exchange's diagnostics for a case with the lock profile; null for another.
std::unique_ptr<CaseDiagnostics> lock_exchange_diagnostics(const Simulation& sim);

}  // namespace bouss
