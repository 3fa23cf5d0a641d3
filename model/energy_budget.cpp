#include "model/energy_budget.hpp"

#include "model/lock_exchange_diagnostics.hpp"

namespace bouss {

EnergyBudget::EnergyBudget(const Simulation& sim, const Lock& lock)
    : lock_(lock),
      volume_(sim.grid().whole().volume()),
      rates_(sim.backend()) {}

void EnergyBudget::start(const Simulation& sim, const LockDiagnostics& initial) {
  dissipation_ = conversion_ = 0;
  have_last_ = false;
  initial_energy_ = initial.kinetic_energy + initial.temperature.potential_energy;
  initial_heat_ = initial.temperature.heat;
  energy_rates_into(sim, rates_.target());
  rates_.publish();
  pending_ = true;
  pending_time_ = sim.time();
}

void EnergyBudget::settle() {
  if (!pending_) return;
  const EnergyRates now = rates_.get();
  if (have_last_) {
    const double dt = pending_time_ - last_time_;
    dissipation_ += 0.5 * dt * (last_.dissipation + now.dissipation);
    conversion_ += 0.5 * dt * (last_.conversion + now.conversion);
  }
  last_ = now;
  last_time_ = pending_time_;
  have_last_ = true;
  pending_ = false;
}

void EnergyBudget::advance(const Simulation& sim) {
  settle();  // the step before: its rates arrived while this step's pressure solve ran
  energy_rates_into(sim, rates_.target());
  rates_.publish();
  pending_ = true;
  pending_time_ = sim.time();
}

double EnergyBudget::heat_drift(const LockDiagnostics& d) const {
  return (d.temperature.heat - initial_heat_) / (lock_.contrast() * volume_);
}

EnergyBudget::Values EnergyBudget::values(const LockDiagnostics& d) {
  settle();
  Values v;
  v.dissipation = dissipation_;
  v.conversion = conversion_;
  v.energy_residual = d.kinetic_energy + d.temperature.potential_energy + dissipation_ - conversion_ - initial_energy_;
  v.heat_drift = heat_drift(d);
  return v;
}

std::map<std::string, double> EnergyBudget::state() {
  settle();
  return {{"budget_dissipation", dissipation_},
          {"budget_conversion", conversion_},
          {"budget_last_dissipation_rate", last_.dissipation},
          {"budget_last_conversion_rate", last_.conversion},
          {"budget_last_time", last_time_},
          {"budget_initial_energy", initial_energy_},
          {"budget_initial_heat", initial_heat_}};
}

bool EnergyBudget::restore(const std::map<std::string, double>& state) {
  const char* keys[] = {"budget_dissipation",  "budget_conversion",     "budget_last_dissipation_rate",
                        "budget_last_conversion_rate", "budget_last_time", "budget_initial_energy",
                        "budget_initial_heat"};
  for (const char* key : keys)
    if (!state.count(key)) return false;
  dissipation_ = state.at("budget_dissipation");
  conversion_ = state.at("budget_conversion");
  last_.dissipation = state.at("budget_last_dissipation_rate");
  last_.conversion = state.at("budget_last_conversion_rate");
  last_time_ = state.at("budget_last_time");
  initial_energy_ = state.at("budget_initial_energy");
  initial_heat_ = state.at("budget_initial_heat");
  have_last_ = true;
  pending_ = false;
  return true;
}

}  // namespace bouss
