// Front speeds of a lock exchange, measured as the gravity-current literature does (Hartel,
// Meiburg & Necker 2000, JFM 418; the case cases/lock_exchange_2d.json): run the case, record
// the position of each front (physics/lock_exchange.hpp) after every step, and fit the speed
// of each by least squares over its constant-speed phase; the Froude number is
// U / sqrt(g' H), g' = b_T |T_dense - T_light| and H the full depth. Repeated at several
// resolutions by `bouss front`, with the convergence of each Froude number.
//
// The window of the fit, for each front on its own, in units of h = H/2 (the half depth that
// the literature's buoyancy units take):
//   - it begins when the front has travelled front_fit_start = 3 h from the lock. The release
//     accelerates the currents over the first few h, and along a no-slip floor the nose's
//     foremost point rides above the bottom row of cells, whose front then advances in jumps:
//     in cases/lock_exchange_2d.json at 1024x1x64 the floor front moves at 0.36 and then
//     0.85 u_b over t = 2..6 (travelled 0.8 to 3 h) and at 0.584 +- 0.002 from there on. A
//     window from 1.5 h gives 0.593 with halves 5% apart; from 3 h 0.58471 with halves
//     0.58568 and 0.58543. The lid front (free-slip) has settled by 2.7 h;
//   - it ends at the last sample before the front comes within front_fit_wall_margin = 2 h of
//     the end wall it runs toward (the current slows as it meets the wall), or at the end of
//     the run.
// As onset's growth-rate fits do (validation/onset.hpp), the same fit on each half of the
// window says whether the speed was constant: halves that differ by more than
// front_halves_tolerance (2%) of the speed flag a window that still holds the acceleration,
// or a front that moves in jumps (coarse grids: at 256x1x16 the halves differ by 7-12%).
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "config/case.hpp"

namespace bouss {

constexpr double front_fit_start = 3;        // h travelled before the window opens
constexpr double front_fit_wall_margin = 2;  // h before the end wall where it closes
constexpr double front_halves_tolerance = 0.02;  // of the speed

struct FrontSpeedFit {
  double speed = NAN;                        // least-squares slope of distance travelled against t
  double begin = NAN, end = NAN;             // the window's first and last sample times
  double first_half = NAN, second_half = NAN;  // the same fit on each half of the window (by samples)
  double rms = NAN;                          // rms distance of the window's samples from the fitted line
  int samples = 0;
  std::string problem;                       // why there is no fit ("" when there is one)

  bool fitted() const { return problem.empty(); }
  bool halves_agree() const {
    return fitted() && std::fabs(first_half - second_half) <= front_halves_tolerance * std::fabs(speed);
  }
};

// The fit over the samples (t[i], travelled[i]), in time order: the window runs from the first
// sample at which the front has travelled `start` or more, up to the last sample before the
// first one past `stop`. Fewer than 8 samples in the window give no fit (`problem` says why).
FrontSpeedFit fit_front_speed(const std::vector<double>& t, const std::vector<double>& travelled, double start,
                              double stop);

struct FrontMeasurement {
  std::array<int, 3> n{};
  double fraction = 0;         // the front's threshold, of |T_dense - T_light|
  double half_depth = 0;       // h = H / 2
  double buoyancy_velocity = 0;  // sqrt(g' H)
  FrontSpeedFit floor, lid;
  double froude_floor = NAN, froude_lid = NAN;  // speed / sqrt(g' H)
  // The most T left the fluids' range over the run: max T - max(T_left, T_right) and
  // min(T_left, T_right) - min T, each over every step's cells (0 if it never did).
  double overshoot = 0, undershoot = 0;
  // At the end of the run: the energy budget's E - E(0) (model/energy_budget.hpp), the same
  // over the potential energy released, PE(0) - PE, and the heat's relative drift.
  double energy_residual = NAN, energy_residual_relative = NAN, heat_drift = NAN;
  double time = 0;
  long steps = 0;
  // The samples: time and each front's distance travelled, after every step (and at t = 0).
  std::vector<double> t, floor_travelled, lid_travelled;
};

// Runs the lock-exchange case `c` (no output), recording the fronts at the given fraction
// after every step, and fits both speeds. on_progress(t, steps, floor travelled, lid
// travelled) is called about every progress_seconds of wall time. Throws CaseError for a case
// without the lock profile.
using FrontProgress = std::function<void(double t, long steps, double floor, double lid)>;
FrontMeasurement measure_fronts(const Case& c, const Backend& backend, double fraction,
                                const FrontProgress& on_progress = {}, double progress_seconds = 30);

}  // namespace bouss
