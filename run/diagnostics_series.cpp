#include "run/diagnostics_series.hpp"

#include <cmath>
#include <stdexcept>

namespace bouss {

std::map<std::string, double> DiagnosticsSeries::record(double time, const Diagnostics& d, double dt,
                                                        int pressure_cycles, bool plates,
                                                        const std::map<std::string, double>& extra) {
  std::map<std::string, double> r = extra;
  for (const FlowDiagnostic& f : flow_diagnostics())
    if (f.of && (plates || !f.plates)) r[f.info.name] = f.of(d);
  r["dt"] = dt;
  r["pressure_cycles"] = double(pressure_cycles);
  growth_ = NAN;
  if (d.kinetic_energy > 0 && last_energy_ > 0 && time > last_time_)
    growth_ = 0.5 * std::log(d.kinetic_energy / last_energy_) / (time - last_time_);
  r["growth_rate"] = growth_;
  last_energy_ = d.kinetic_energy;
  last_time_ = time;
  latest_ = d;
  return r;
}

std::map<std::string, double> DiagnosticsSeries::state() const {
  return {{"series_last_energy", last_energy_},          {"series_last_time", last_time_},
          {"series_growth_rate", growth_},               {"series_kinetic_energy", latest_.kinetic_energy},
          {"series_max_divergence", latest_.max_divergence}, {"series_max_velocity", latest_.max_velocity},
          {"series_nusselt_bottom", latest_.nusselt.bottom}, {"series_nusselt_top", latest_.nusselt.top},
          {"series_nusselt_volume", latest_.nusselt.volume},
          {"series_nusselt_kinetic_dissipation", latest_.nusselt.kinetic_dissipation},
          {"series_nusselt_thermal_dissipation", latest_.nusselt.thermal_dissipation}};
}

void DiagnosticsSeries::restore(const std::map<std::string, double>& state) {
  auto get = [&](const char* key) {
    auto it = state.find(key);
    if (it == state.end()) throw std::invalid_argument(std::string("diagnostics series state lacks ") + key);
    return it->second;
  };
  last_energy_ = get("series_last_energy");
  last_time_ = get("series_last_time");
  growth_ = get("series_growth_rate");
  latest_.kinetic_energy = get("series_kinetic_energy");
  latest_.max_divergence = get("series_max_divergence");
  latest_.max_velocity = get("series_max_velocity");
  // Checkpoints written before the dissipation estimates hold none: NaN until the next record.
  const auto optional = [&](const char* key) {
    auto it = state.find(key);
    return it == state.end() ? NAN : it->second;
  };
  latest_.nusselt = {get("series_nusselt_bottom"), get("series_nusselt_top"), get("series_nusselt_volume"),
                     optional("series_nusselt_kinetic_dissipation"), optional("series_nusselt_thermal_dissipation")};
}

}  // namespace bouss
