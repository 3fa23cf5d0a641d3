// The time step: the smallest of the advective limit cfl / max(|u|/dx + |v|/dy + |w|/dz),
// the diffusive limit of AB2 and the buoyancy (free-fall) limit, unless the case fixes it;
// then clipped to land on the end time, or on the next output time (time.land_on_outputs),
// without a sliver of a last step. The formulas are
// host-and-device functions: the step computes its dt on the device (plan_step, one thread,
// from the state check the previous step left there) so that no kernel waits for the host,
// and the host's own stable_time_step is the same arithmetic (the test compares them bit for
// bit).
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "grid/backend.hpp"
#include "grid/config.hpp"

namespace bouss {

// Diffusive stability of AB2: dt * max(nu, kappa) * sum(1/h^2) <= this bound (AB2's
// real-axis stability limit is dt*lambda <= 1 with lambda = 4 nu sum(1/h^2); 0.2 keeps
// a margin of 0.8 of it).
constexpr double diffusive_number = 0.2;

// Whether x is neither NaN nor infinite (in device code too, without <cmath>'s overloads).
BOUSS_HD inline bool finite_value(double x) { return x - x == 0; }

// The diffusive limit for the smallest spacing per axis h (a stretched z's thinnest cell);
// infinite when nu = kappa = 0.
inline double diffusive_time_step(const std::array<double, 3>& h, double nu, double kappa) {
  double inv_h2 = 0;
  for (int a = 0; a < 3; ++a) inv_h2 += 1 / (h[a] * h[a]);
  const double diffusivity = nu > kappa ? nu : kappa;
  return diffusivity > 0 ? diffusive_number / (diffusivity * inv_h2) : std::numeric_limits<double>::infinity();
}

// The buoyancy (free-fall) limit: a fluid at rest that the largest buoyancy the case can
// hold, |b_T| dT (dT: the case's temperature contrast, config/units.hpp), accelerates for
// dt reaches the velocity |b_T| dT dt, and with it the Courant number |b_T| dT dt^2 / h on
// cells of the smallest spacing h. Keeping that at the case's CFL number gives
//   dt <= sqrt(cfl h / (|b_T| dT)).
// From rest the advective limit does not bind (the velocity is zero), and without this one a
// huge Rayleigh number ran the whole case in one diffusive step. In developed flow, where
// velocities near the free-fall velocity sqrt(|b_T| dT H), the advective limit is the
// smaller by about sqrt(H / (cfl h)). Infinite without buoyancy or contrast.
inline double buoyancy_time_step(double smallest_spacing, double buoyancy, double contrast, double cfl) {
  const double acceleration = (buoyancy < 0 ? -buoyancy : buoyancy) * (contrast < 0 ? -contrast : contrast);
  if (!(acceleration > 0) || !(smallest_spacing > 0)) return std::numeric_limits<double>::infinity();
  return std::sqrt(cfl * smallest_spacing / acceleration);
}

// What a case fixes about its steps: a fixed dt (0: adaptive), the diffusive and buoyancy
// limits, the CFL number, the end time (has_end false: none) and the next time an output is
// due (infinite: none), which the steps land on as they land on the end.
struct StepLimits {
  double fixed_dt = 0;
  double diffusive_dt = 0;
  double buoyancy_dt = std::numeric_limits<double>::infinity();
  double cfl = 0;
  bool has_end = false;
  double end = 0;
  double land = std::numeric_limits<double>::infinity();
};

// The smallest of the diffusive and buoyancy limits and cfl / rate (`rate`: the advective
// rate of the state, physics/flow.hpp state_rate_into; 0 at rest).
BOUSS_HD inline double limited_time_step(const StepLimits& lim, double rate) {
  double dt = lim.diffusive_dt < lim.buoyancy_dt ? lim.diffusive_dt : lim.buoyancy_dt;
  if (rate > 0 && lim.cfl / rate < dt) dt = lim.cfl / rate;
  return dt;
}

// Which of the limits gives limited_time_step(lim, rate), in words (bouss check's first dt).
inline const char* binding_time_step_limit(const StepLimits& lim, double rate) {
  if (lim.fixed_dt > 0) return "time.dt";
  const double dt = limited_time_step(lim, rate);
  if (rate > 0 && dt == lim.cfl / rate) return "the advective CFL limit";
  if (dt == lim.buoyancy_dt) return "the buoyancy limit sqrt(cfl h / (b_T dT))";
  return "the diffusive limit";
}

// The host's dt of a state whose advective rate is `rate` (before clipping to the end).
inline double stable_time_step(const StepLimits& lim, double rate) {
  const double dt = lim.fixed_dt > 0 ? lim.fixed_dt : limited_time_step(lim, rate);
  if (!finite_value(dt))
    throw std::runtime_error("no time step limit: the fluid is at rest and nu = kappa = 0; set time.dt");
  return dt;
}

// Lands on `end`: a last step that would overshoot is shortened, and one that would leave
// less than half a step is avoided by splitting the remainder in two.
BOUSS_HD inline double clip_to(double dt, double time, double end) {
  const double left = end - time;
  if (left <= dt * (1 + 1e-12)) return left;
  if (left < 1.5 * dt) return left / 2;
  return dt;
}
inline double clip_to_end(double dt, double time, std::optional<double> end) {
  return end ? clip_to(dt, time, *end) : dt;
}
// The time the next steps land on: the end or the next output time, whichever comes first
// (infinite: none).
BOUSS_HD inline double landing_time(const StepLimits& lim) {
  return lim.has_end && lim.end < lim.land ? lim.end : lim.land;
}
// The step from `time` clipped to land on landing_time(lim); `lands` says whether it ends there.
BOUSS_HD inline double clip_to_landing(double dt, double time, const StepLimits& lim, bool& lands) {
  const double target = landing_time(lim);
  lands = false;
  if (!finite_value(target) || !(target > time)) return dt;  // none, or not ahead
  const double clipped = clip_to(dt, time, target);
  lands = clipped == target - time;
  return clipped;
}

// Adams-Bashforth 2 with variable steps: x^{n+1} = x^n + dt (a G^n + b G^{n-1}),
// a = 1 + dt/(2 dt_old), b = -dt/(2 dt_old); forward Euler (a = 1, b = 0) on the first step.
struct AB2Coefficients {
  double a = 1, b = 0;
  BOUSS_HD static AB2Coefficients make(double dt, double dt_old, bool first) {
    if (first) return {1, 0};
    const double r = dt / (2 * dt_old);
    return {1 + r, -r};
  }
};

// The clock of a run where the step's kernels read it (backend memory): after plan_step,
// the step about to be taken, with every scalar its kernels need.
struct StepClock {
  double time = 0;       // at the end of the step (the run's time once it is taken)
  double start = 0;      // at its start (the time of the state it starts from)
  double dt = 0;         // the step's (0 before the first)
  double a = 1, b = 0;   // its AB2 coefficients
  double inv_dt = 0;     // 1 / dt (the projection's right-hand side is div u* / dt)
  // dt over the dt of the last pressure solve (0 when there was none): the extrapolation of
  // the pressure's first guess (grid/field_ops.hpp extrapolate_in_time).
  double extrapolation = 0;
  double solve_dt = 0;   // the dt of the latest pressure solve (0: none, no extrapolation)
  double rate = 0;       // the state check the step started from (NaN or Inf: a blow-up)
  long long steps = 0;   // steps done once it is taken
};

// The next step from the clock of the last one and the state check of the state it left:
// the same arithmetic as the host's stable_time_step and clip_to_landing. A step that lands
// ends at the landing time itself, not at the sum time + dt (which may differ from it by
// rounding): an output due at t = 5 is written at t = 5. A non-finite rate (the state blew
// up) or dt (no limit) is left for the host to report (finite_value).
BOUSS_HD inline void plan_step(StepClock& c, const StepLimits& lim, double rate) {
  double dt = lim.fixed_dt > 0 ? lim.fixed_dt : limited_time_step(lim, rate);
  bool lands = false;
  dt = clip_to_landing(dt, c.time, lim, lands);
  const AB2Coefficients ab = AB2Coefficients::make(dt, c.dt, c.steps == 0);
  c.a = ab.a;
  c.b = ab.b;
  c.dt = dt;
  c.inv_dt = 1 / dt;
  c.extrapolation = c.solve_dt > 0 ? dt / c.solve_dt : 0.0;
  c.solve_dt = dt;
  c.rate = rate;
  c.start = c.time;
  c.time = lands ? landing_time(lim) : c.time + dt;
  c.steps += 1;
}

// plan_step by one thread on the backend, in stream order: `clock` and `rate` (the state
// check's reduce_into target) in backend memory.
void plan_step_on(const Backend& backend, StepClock* clock, const StepLimits& limits, const double* rate);

}  // namespace bouss
