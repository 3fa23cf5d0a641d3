// The diagnostics of a run, named in one place. The flow's own (every case: the kinetic
// energy, the divergence, between fixed-temperature plates the Nusselt numbers; and the
// series' dt, pressure iterations and growth rate) are this file's table; a case adds those
// of the physics that owns them through CaseDiagnostics (the lock exchange's fronts and
// energy budget: model/lock_exchange_diagnostics.hpp), found by case_diagnostics. The run
// driver records them all in its series (run/diagnostics_series.hpp), the writer describes
// them from their DiagnosticInfo, the steadiness and convergence tools read the table.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/diagnostics.hpp"
#include "model/simulation.hpp"

namespace bouss {

struct FlowDiagnostic {
  DiagnosticInfo info;
  double (*of)(const Diagnostics&) = nullptr;  // its value in a state's Diagnostics; null for the series' own
  bool plates = false;                         // recorded only between fixed, differing plate temperatures
  bool steady_measure = false;                 // a quantity `bouss converge` can follow to steadiness
};

// kinetic_energy, max_divergence, max_velocity, nusselt_bottom, nusselt_top, nusselt_volume,
// nusselt_kinetic_dissipation, nusselt_thermal_dissipation, then the series' dt,
// pressure_cycles and growth_rate.
const std::vector<FlowDiagnostic>& flow_diagnostics();
// The diagnostic of that name, or null.
const FlowDiagnostic* find_flow_diagnostic(const std::string& name);

// Diagnostics a case adds to the series and the progress line, kept by the physics that owns
// them; their state travels in checkpoints.
class CaseDiagnostics {
 public:
  virtual ~CaseDiagnostics() = default;
  virtual const std::vector<DiagnosticInfo>& info() const = 0;
  // At the start of a run, or at a restart from a checkpoint's `state` (false when the state
  // holds none of its keys: a checkpoint written before these diagnostics; it starts again).
  virtual void start(const Simulation& sim) = 0;
  virtual bool restore(const Simulation& sim, const std::map<std::string, double>& state) = 0;
  // After each step.
  virtual void advance(const Simulation& sim) = 0;
  // The values of the current state, into `values`; the text the progress line adds.
  virtual void record(const Simulation& sim, std::map<std::string, double>& values) = 0;
  virtual std::string progress(const Simulation& sim) const = 0;
  // What a checkpoint stores to continue them bit for bit (named doubles).
  virtual std::map<std::string, double> state() = 0;
};

// The case diagnostics of every physics that claims the simulation's case.
std::vector<std::unique_ptr<CaseDiagnostics>> case_diagnostics(const Simulation& sim);

}  // namespace bouss
