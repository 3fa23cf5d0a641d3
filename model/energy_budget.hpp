// The time integrals of a lock exchange's energy budget (physics/lock_exchange.hpp): the
// cumulative viscous dissipation D = int epsilon dt and diffusive conversion C = int phi_d dt,
// by the trapezoid rule over every step, so that E = KE + PE + D - C, conserved up to the
// discretization, can be compared with its value at the start; and the heat content's drift.
//
// The rates of each state are reduced on the backend's stream into an AsyncValue right after
// the step that made it, and read on the host one step later, when integrating that step:
// by then the next step's pressure solve has waited for the device anyway, so the budget
// adds no device sync of its own. Only values() (a diagnostics record), state() (a
// checkpoint) and finish() wait, for the latest rates.
//
// The run driver (run/run.hpp) keeps one for every case whose initial temperature profile
// is "lock" (physics/lock_exchange.hpp is_lock_exchange); its state travels in checkpoints.
#pragma once

#include <map>
#include <string>

#include "grid/async_value.hpp"
#include "physics/lock_exchange.hpp"
#include "model/simulation.hpp"

namespace bouss {

class EnergyBudget {
 public:
  EnergyBudget(const Simulation& sim, const Lock& lock);

  // At the start of a run: E(0) and the heat H(0) from the diagnostics of the initial state,
  // whose rates are queued.
  void start(const Simulation& sim, const LockDiagnostics& initial);
  // After each step: integrates the step before it (whose rates were queued then) and
  // queues the rates of the current state.
  void advance(const Simulation& sim);

  struct Values {
    double dissipation = 0, conversion = 0;  // D and C up to the current state
    double energy_residual = 0;              // E - E(0), absolute
    double heat_drift = 0;                   // (H - H(0)) / (|T_dense - T_light| V)
  };
  // The budget at the current state, whose diagnostics are d (waits for its rates).
  Values values(const LockDiagnostics& d);
  // Relative heat drift alone (no wait).
  double heat_drift(const LockDiagnostics& d) const;
  double initial_energy() const { return initial_energy_; }

  // What a checkpoint stores to continue the integrals bit for bit (named doubles, keys
  // "budget_*"); restore() returns false when the state holds none of them (a checkpoint
  // written before the budget existed), and leaves the budget untouched then.
  std::map<std::string, double> state();
  bool restore(const std::map<std::string, double>& state);

 private:
  // Integrates up to the last queued rates (waits for them).
  void settle();

  Lock lock_;
  double volume_ = 0;
  AsyncValue<EnergyRates> rates_;
  bool pending_ = false;    // rates queued and not yet integrated
  double pending_time_ = 0;
  bool have_last_ = false;  // the rates at last_time_ are known
  EnergyRates last_{};
  double last_time_ = 0;
  double dissipation_ = 0, conversion_ = 0;
  double initial_energy_ = 0, initial_heat_ = 0;
};

}  // namespace bouss
