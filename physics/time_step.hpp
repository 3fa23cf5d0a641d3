// The time step: the smaller of the advective limit cfl / max(|u|/dx + |v|/dy + |w|/dz)
// and the diffusive limit of AB2, unless the case fixes it; then clipped to land on the
// end time without a sliver of a last step. The formulas are host-and-device functions:
// the step computes its dt on the device (plan_step, one thread, from the state check the
// previous step left there) so that no kernel waits for the host, and the host's own
// stable_time_step is the same arithmetic (the test compares them bit for bit).
#pragma once

#include <array>
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

// The smaller of the diffusive limit and cfl / rate (`rate`: the advective rate of the
// state, physics/flow.hpp state_rate_into; 0 at rest, when only diffusion limits).
BOUSS_HD inline double limited_time_step(double diffusive_dt, double cfl, double rate) {
  if (rate > 0 && cfl / rate < diffusive_dt) return cfl / rate;
  return diffusive_dt;
}

inline double stable_time_step(const std::array<double, 3>& h, double nu, double kappa, double cfl, double rate) {
  const double dt = limited_time_step(diffusive_time_step(h, nu, kappa), cfl, rate);
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

// What a case fixes about its steps: a fixed dt (0: adaptive), the diffusive limit, the
// CFL number and the end time (has_end false: none).
struct StepLimits {
  double fixed_dt = 0;
  double diffusive_dt = 0;
  double cfl = 0;
  bool has_end = false;
  double end = 0;
};

// The clock of a run where the step's kernels read it (backend memory): after plan_step,
// the step about to be taken, with every scalar its kernels need.
struct StepClock {
  double time = 0;       // at the end of the step (the run's time once it is taken)
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
// the same arithmetic as the host's stable_time_step and clip_to_end. A non-finite rate
// (the state blew up) or dt (no limit) is left for the host to report (finite_value).
BOUSS_HD inline void plan_step(StepClock& c, const StepLimits& lim, double rate) {
  double dt = lim.fixed_dt > 0 ? lim.fixed_dt : limited_time_step(lim.diffusive_dt, lim.cfl, rate);
  if (lim.has_end) dt = clip_to(dt, c.time, lim.end);
  const AB2Coefficients ab = AB2Coefficients::make(dt, c.dt, c.steps == 0);
  c.a = ab.a;
  c.b = ab.b;
  c.dt = dt;
  c.inv_dt = 1 / dt;
  c.extrapolation = c.solve_dt > 0 ? dt / c.solve_dt : 0.0;
  c.solve_dt = dt;
  c.rate = rate;
  c.time += dt;
  c.steps += 1;
}

// plan_step by one thread on the backend, in stream order: `clock` and `rate` (the state
// check's reduce_into target) in backend memory.
void plan_step_on(const Backend& backend, StepClock* clock, const StepLimits& limits, const double* rate);

}  // namespace bouss
