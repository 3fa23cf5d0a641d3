// Whether a run ended in a steady state, judged from its last part: `bouss converge`
// compares values at the end of runs, and a value taken mid-transient (or from an
// oscillating or slowly drifting flow) is no converged value to take an order from.
//
// Over the last 20% of the run (by time, or by steps when the case gives only steps) the
// diagnostics are sampled at about 200 even points. The run is steady when
//   - the drift of the diagnostic, (max - min) / |last| over that window, is at most 1e-4
//     (for a Nusselt number, of each of the bottom, top and volume numbers);
//   - for a Nusselt number between side walls that exchange no heat (periodic or insulating
//     in x and y), the bottom, top and volume numbers agree at the end to 1e-4 of their mean:
//     in a steady state the horizontally averaged heat flux is the same at every height, so
//     the three are one number (their difference is the heat content's rate of change).
//     Conducting side walls exchange heat with the fluid and the three differ even when steady.
// 1e-4 is small against the differences between resolutions that an order is taken from
// (9e-3 of the value between the cube's 32^3 and 64^3 Nusselt numbers in validation/README.md),
// and ten times below the drift of the flows it is meant to catch: the cube's 16^3 run at
// t = 3, mid-instability, drifts by 1e-3 over its last 20% (the 32^3 run, steady, by 8e-9).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "model/simulation.hpp"

namespace bouss {

constexpr double steady_window_fraction = 0.2;  // the last part of the run that is judged
constexpr double steady_tolerance = 1e-4;       // drift and Nusselt agreement, relative

// A scalar diagnostic by name: nusselt_bottom, nusselt_top, nusselt_volume, kinetic_energy,
// max_velocity. Throws std::invalid_argument for another name.
double diagnostic_value(const Diagnostics& d, const std::string& name);

// (side_walls_exchange_no_heat, config/case.hpp: then the three Nusselt numbers agree in a
// steady state; without plates of fixed temperature they are NaN, and the judgement says so.)

struct SteadinessJudgement {
  double window_begin = NAN, window_end = NAN;  // the times of the first and last sample
  int samples = 0;
  double drift = NAN;           // the largest (max - min) / |last| of the watched diagnostics
  double nusselt_spread = NAN;  // (max - min) / |mean| of the three Nusselt numbers at the end; NaN: not judged
  bool steady = false;
  std::string reason;  // why not steady, for a log line ("" when steady)
};

// Samples a run's diagnostics over its last part; observe() after every step, finish() at the end.
class SteadinessWindow {
 public:
  SteadinessWindow(std::string diagnostic, bool judge_nusselt_agreement, int samples = 200);
  // Records the diagnostics when the run has passed the next sampling point of the window.
  void observe(const Simulation& sim);
  // Records the final state (unless observe() just did).
  void finish(const Simulation& sim);
  SteadinessJudgement judge() const;

 private:
  void record(const Simulation& sim);
  bool watches_nusselt() const { return diagnostic_.rfind("nusselt_", 0) == 0; }

  std::string diagnostic_;
  bool judge_agreement_;
  int samples_, next_ = 0;
  long last_step_ = -1;
  std::vector<double> times_;
  std::vector<Diagnostics> values_;
};

}  // namespace bouss
