// The diagnostics of a run (model/diagnostics.hpp).
#include "model/diagnostics.hpp"

#include "model/lock_exchange_diagnostics.hpp"

namespace bouss {

const std::vector<FlowDiagnostic>& flow_diagnostics() {
  static const std::vector<FlowDiagnostic> table = {
      {{"kinetic_energy", "volume-averaged kinetic energy per unit mass", "m2 s-2", "kinetic energy"},
       [](const Diagnostics& d) { return d.kinetic_energy; }, false, true},
      {{"max_divergence", "maximum absolute velocity divergence", "s-1"},
       [](const Diagnostics& d) { return d.max_divergence; }},
      {{"max_velocity", "maximum absolute face velocity component", "m s-1"},
       [](const Diagnostics& d) { return d.max_velocity; }, false, true},
      {{"nusselt_bottom", "Nusselt number through the bottom plate", "1", "Nusselt number"},
       [](const Diagnostics& d) { return d.nusselt.bottom; }, true, true},
      {{"nusselt_top", "Nusselt number through the top plate", "1", "Nusselt number"},
       [](const Diagnostics& d) { return d.nusselt.top; }, true, true},
      {{"nusselt_volume", "Nusselt number from the volume average, 1 + <w T> / (kappa dT / H)", "1", "Nusselt number"},
       [](const Diagnostics& d) { return d.nusselt.volume; }, true, true},
      {{"nusselt_kinetic_dissipation",
        "Nusselt number from the mean kinetic dissipation rate, 1 + <eps_u> H / (b_T kappa dT)", "1", "Nusselt number"},
       [](const Diagnostics& d) { return d.nusselt.kinetic_dissipation; }, true, true},
      {{"nusselt_thermal_dissipation", "Nusselt number from the mean thermal dissipation, <|grad T|^2> H^2 / dT^2",
        "1", "Nusselt number"},
       [](const Diagnostics& d) { return d.nusselt.thermal_dissipation; }, true, true},
      {{"dt", "time step", "s"}},
      {{"pressure_cycles", "iterations of the last pressure solve (V-cycles, CG iterations or direct passes)", "1"}},
      {{"growth_rate", "growth rate of the kinetic energy, d ln(KE) / dt / 2", "s-1"}},
  };
  return table;
}

const FlowDiagnostic* find_flow_diagnostic(const std::string& name) {
  for (const FlowDiagnostic& d : flow_diagnostics())
    if (d.info.name == name) return &d;
  return nullptr;
}

std::vector<std::unique_ptr<CaseDiagnostics>> case_diagnostics(const Simulation& sim) {
  std::vector<std::unique_ptr<CaseDiagnostics>> all;
  if (auto lock = lock_exchange_diagnostics(sim)) all.push_back(std::move(lock));
  return all;
}

}  // namespace bouss
