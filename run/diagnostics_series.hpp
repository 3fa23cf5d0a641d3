// The diagnostics series of a run: one record every few steps (and at the start and the
// end) of the scalar diagnostics, and the growth rate of the kinetic energy since the
// previous record, sigma = d ln(KE) / dt / 2 (KE grows as exp(2 sigma t)).
#pragma once

#include <cmath>
#include <map>
#include <string>

#include "model/diagnostics.hpp"
#include "model/simulation.hpp"

namespace bouss {

class DiagnosticsSeries {
 public:
  // The record of the state `d` at `time`: the flow's diagnostics (model/diagnostics.hpp;
  // the Nusselt numbers between fixed-temperature plates), dt, pressure_cycles and
  // growth_rate, and the case's own, `extra` (CaseDiagnostics::record; docs/output.md).
  // Advances the growth-rate reference to this record.
  std::map<std::string, double> record(double time, const Diagnostics& d, double dt, int pressure_cycles,
                                       bool plates, const std::map<std::string, double>& extra = {});
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
