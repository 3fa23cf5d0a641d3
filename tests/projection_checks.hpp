// Projection checks on any backend (physics suite on the CPU, gpu suite on CUDA).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "grid/field_ops.hpp"
#include "solver/flow_simulation.hpp"
#include "test_support.hpp"

namespace bouss::test {

inline Case projection_case_plates() {
  Case c = box_case({16, 12, 8}, {2.0, 1.5, 1.0}, 0.01, 0.01, 1.0);
  set_plates(c, VelocityBC::no_slip, 1.0, 0.0);
  c.pressure.tolerance = 1e-12;
  return c;
}

inline Case projection_case_closed() {
  Case c = projection_case_plates();
  c.faces[0] = c.faces[1] = wall(VelocityBC::no_slip);
  c.faces[2] = c.faces[3] = wall(VelocityBC::free_slip);
  return c;
}

// Random velocity on every unknown face; after one projection max|div u| is round-off.
inline void check_projection(const Backend& be, const Case& c) {
  FlowSimulation<double> sim(c, be);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int comp = 0; comp < 3; ++comp) set_field(sim.flow()[comp], sim.grid(), [&](double, double, double) { return U(rng); });
  sim.fill_all_ghosts();
  const double before = sim.diagnostics().max_divergence;
  sim.project(0.1);
  ASSERT_TRUE(sim.last_solve().converged) << "cycles " << sim.last_solve().cycles;
  const Diagnostics d = sim.diagnostics();
  const double h = *std::min_element(sim.grid().h.begin(), sim.grid().h.end());
  EXPECT_GT(before, 1.0) << "the random field starts far from divergence-free";
  EXPECT_LT(d.max_divergence, 1e-10 * d.max_velocity / h)
      << "max|div u| " << d.max_divergence << " max|u| " << d.max_velocity;
  // Projecting a divergence-free field changes nothing.
  const std::vector<double> u1 = sim.host_values("u");
  sim.project(0.1);
  const std::vector<double> u2 = sim.host_values("u");
  double change = 0;
  for (std::size_t i = 0; i < u1.size(); ++i) change = std::max(change, std::fabs(u1[i] - u2[i]));
  EXPECT_LT(change, 1e-10 * d.max_velocity);
}

}  // namespace bouss::test
