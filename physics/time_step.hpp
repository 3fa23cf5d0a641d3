// The time step: the smaller of the advective limit cfl / max(|u|/dx + |v|/dy + |w|/dz)
// and the diffusive limit of AB2, unless the case fixes it; then clipped to land on the
// end time without a sliver of a last step.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "grid/config.hpp"

namespace bouss {

// Diffusive stability of AB2: dt * max(nu, kappa) * sum(1/h^2) <= this bound (AB2's
// real-axis stability limit is dt*lambda <= 1 with lambda = 4 nu sum(1/h^2); 0.2 keeps
// a margin of 0.8 of it).
constexpr double diffusive_number = 0.2;

// h: the smallest spacing per axis (a stretched z's thinnest cell).
// `rate` is the advective rate of the state (physics/flow.hpp state_rate_into; 0 at rest).
inline double stable_time_step(const std::array<double, 3>& h, double nu, double kappa, double cfl, double rate) {
  double inv_h2 = 0;
  for (int a = 0; a < 3; ++a) inv_h2 += 1 / (h[a] * h[a]);
  const double diffusivity = std::max(nu, kappa);
  double dt = diffusivity > 0 ? diffusive_number / (diffusivity * inv_h2) : std::numeric_limits<double>::infinity();
  if (rate > 0) dt = std::min(dt, cfl / rate);
  if (!std::isfinite(dt))
    throw std::runtime_error("no time step limit: the fluid is at rest and nu = kappa = 0; set time.dt");
  return dt;
}

// Lands on `end`: a last step that would overshoot is shortened, and one that would leave
// less than half a step is avoided by splitting the remainder in two.
inline double clip_to_end(double dt, double time, std::optional<double> end) {
  if (!end) return dt;
  const double left = *end - time;
  if (left <= dt * (1 + 1e-12)) return left;
  if (left < 1.5 * dt) return left / 2;
  return dt;
}

}  // namespace bouss
