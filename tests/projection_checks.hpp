// Projection checks on any backend (physics suite on the CPU, gpu suite on CUDA), in both
// precisions of the fields.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "grid/field_ops.hpp"
#include "model/flow_simulation.hpp"
#include "test_support.hpp"

namespace bouss::test {

// The relative pressure tolerance a projection in precision R asks for: 1e-12 in double; in
// float 1e-6 (8.4 epsilons), which the float solve reaches in 3 or 4 V-cycles on these
// cases (it stalls at 0.8e-7 to 2e-7, measured on 16x12x8, 24x12x6 and 64x64x32). A looser
// float tolerance would leave the divergence at that tolerance, not at round-off: with 1e-4
// max|div u| after projecting is about 2000 eps |u|/h.
template <class R>
constexpr double projection_tolerance() {
  return sizeof(R) == sizeof(float) ? 1e-6 : 1e-12;
}

// A case of precision R (its `precision` says which, though FlowSimulation<R> needs only R).
template <class R = double>
Case projection_case_plates() {
  Case c = box_case({16, 12, 8}, {2.0, 1.5, 1.0}, 0.01, 0.01, 1.0);
  set_plates(c, VelocityBC::no_slip, 1.0, 0.0);
  c.precision = precision_of<R>();
  c.pressure.tolerance = projection_tolerance<R>();
  return c;
}

template <class R = double>
Case projection_case_closed() {
  Case c = projection_case_plates<R>();
  c.faces[0] = c.faces[1] = wall(VelocityBC::no_slip);
  c.faces[2] = c.faces[3] = wall(VelocityBC::free_slip);
  return c;
}

// Random velocity on every unknown face; one projection leaves max|div u| at what the
// solve's stopping rule and R's round-off allow. The new velocity is u* - dt grad(phi), so
// its divergence is dt (b - lap phi), b = div(u*)/dt: at most the tolerance times
// max|div u*| (the residual the solve stops at), plus the rounding of u and of the residual
// computed in R, a few eps_R |u|/h (allowed: 32). In float, whose tolerance is 8.4 eps and
// max|div u*| at most 6 |u|/h, that is under 100 eps |u|/h: float round-off, asserted too.
template <class R>
void check_projection(const Backend& be, const Case& c) {
  FlowSimulation<R> sim(c, be);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int comp = 0; comp < 3; ++comp) set_field(sim.flow()[comp], sim.grid(), [&](double, double, double) { return U(rng); });
  sim.fill_all_ghosts();
  const double before = sim.diagnostics().max_divergence;
  sim.project(0.1);
  ASSERT_TRUE(sim.last_solve().converged) << "cycles " << sim.last_solve().cycles << " in " << precision_name<R>();
  const Diagnostics d = sim.diagnostics();
  const double h = *std::min_element(sim.grid().h.begin(), sim.grid().h.end());
  const double eps = std::numeric_limits<R>::epsilon(), tol = c.pressure.tolerance;
  const double expected = tol * before + 32 * eps * d.max_velocity / h;
  EXPECT_GT(before, 1.0) << "the random field starts far from divergence-free";
  EXPECT_LT(d.max_divergence, expected) << "max|div u| " << d.max_divergence << " max|u| " << d.max_velocity
                                        << " before " << before << " in " << precision_name<R>();
  if (sizeof(R) == sizeof(float))
    EXPECT_LT(d.max_divergence, 100 * eps * d.max_velocity / h)
        << "max|div u| " << d.max_divergence << " is " << d.max_divergence / (eps * d.max_velocity / h)
        << " eps |u|/h";
  // Projecting a divergence-free field changes nothing: the second projection removes what
  // the first left (at most tol max|div u*|, 6 tol |u|/h), moving u by about h/2 times that.
  const std::vector<double> u1 = sim.host_values("u");
  sim.project(0.1);
  const std::vector<double> u2 = sim.host_values("u");
  double change = 0;
  for (std::size_t i = 0; i < u1.size(); ++i) change = std::max(change, std::fabs(u1[i] - u2[i]));
  EXPECT_LT(change, 10 * tol * d.max_velocity) << "in " << precision_name<R>();
}

}  // namespace bouss::test
