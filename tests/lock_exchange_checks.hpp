// Checks of the lock exchange's diagnostics (physics/lock_exchange.hpp) on any backend, on
// fields whose answers are known exactly (unit suite on the CPU, gpu suite on CUDA).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "model/lock_exchange_diagnostics.hpp"
#include "grid/field_ops.hpp"
#include "physics/lock_exchange.hpp"
#include "model/flow_simulation.hpp"
#include "test_support.hpp"

namespace bouss::test {

// A lock of dense T = -1 (left) and light T = +1 (right) at x = position, on a box of unit
// cells (n cells along each axis): periodic unless the faces are set; T_ref = 0 (the mean).
inline Case lock_box_case(std::array<int, 3> n, double position) {
  Case c = box_case(n, {double(n[0]), double(n[1]), double(n[2])}, 0.01, 0.02, 1.0);
  c.initial.profile = TemperatureProfile::lock;
  c.initial.left = -1;
  c.initial.right = 1;
  c.initial.position = position;
  c.initial.thickness = 0.5;
  c.physics.reference_temperature = 0;
  return c;
}

// theta = T - T_ref of every cell from theta(i, j, k), then the ghosts as the step fills them.
template <class R>
void set_theta(FlowSimulation<R>& sim, const std::function<double(int, int, int)>& theta) {
  const auto& n = sim.grid().layout.n;
  std::vector<double> values;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) values.push_back(theta(i, j, k));
  set_interior_values(sim.field("theta"), values);
  sim.fill_all_ghosts();
}

// The energy rates of the simulation's state, through the backend's memory.
inline EnergyRates rates_of(const Simulation& sim) {
  const Backend& be = sim.backend();
  EnergyRates* out = static_cast<EnergyRates*>(be.allocate(sizeof(EnergyRates)));
  energy_rates_into(sim, out);
  EnergyRates r;
  copy_bytes(&r, Backend::cpu(), out, be, sizeof(EnergyRates));
  be.deallocate(out);
  return r;
}

// Fronts of a constructed field, 10 x 2 x 4 unit cells, the lock at x = 5. The bottom row
// holds the dense fluid up to cell 6 in row j = 0 (cell 7 partly, T = 0.2) and up to cell 4
// in j = 1: the floor front is the farther row's crossing of |T - 1| = 1 (half the contrast
// of 2), between the centres 6.5 (|T - 1| = 2) and 7.5 (0.8): x = 6.5 + 1/1.2. The top row
// holds the light fluid from cell 3 on in j = 0 (crossing at 3.0, between 2.5 and 3.5) and
// from cell 5 on in j = 1 (cell 4 at T = -0.5: crossing at 5.5 - 1/1.5): the lid front is
// the farther along -x, 3.0. The rows between hold the dense fluid and play no part.
template <class R>
void check_fronts_of_a_constructed_field(const Backend& be) {
  Case c = lock_box_case({10, 2, 4}, 5.0);
  c.faces[0] = c.faces[1] = wall(VelocityBC::no_slip);
  c.faces[4] = c.faces[5] = wall(VelocityBC::free_slip);
  FlowSimulation<R> sim(c, be);
  const Lock lock = lock_of(c);
  ASSERT_EQ(lock.dense, -1.0);
  ASSERT_EQ(lock.dense_direction, 1);
  set_theta(sim, [](int i, int j, int k) {
    if (k == 0) return j == 0 ? (i <= 6 ? -1.0 : i == 7 ? 0.2 : 1.0) : (i <= 4 ? -1.0 : 1.0);
    if (k == 3) return j == 0 ? (i <= 2 ? -1.0 : 1.0) : (i <= 3 ? -1.0 : i == 4 ? -0.5 : 1.0);
    return -1.0;
  });
  const double eps = 4 * double(std::numeric_limits<R>::epsilon()) * 10;
  const FrontPositions f = lock_diagnostics(sim, lock).fronts;
  EXPECT_NEAR(f.floor_x, 6.5 + 1 / 1.2, eps) << precision_name<R>();
  EXPECT_NEAR(f.floor_travelled, 1.5 + 1 / 1.2, eps);
  EXPECT_NEAR(f.lid_x, 3.0, eps);
  EXPECT_NEAR(f.lid_travelled, 2.0, eps);

  // The dense fluid along the whole floor: the last cell's centre (no crossing to interpolate
  // before the wall); no light fluid along the lid: the lock's position, 0 travelled.
  set_theta(sim, [](int, int, int k) { return k == 0 ? -1.0 : k == 3 ? -1.0 : 1.0; });
  const FrontPositions g = lock_diagnostics(sim, lock).fronts;
  EXPECT_EQ(g.floor_x, 9.5);
  EXPECT_EQ(g.floor_travelled, 4.5);
  EXPECT_EQ(g.lid_x, 5.0);
  EXPECT_EQ(g.lid_travelled, 0.0);

  // A stricter threshold (0.9 of the contrast) moves the crossing toward the fluid ahead:
  // between 6.5 (|T - 1| = 2) and 7.5 (0.8), |T - 1| = 1.8 at 6.5 + 0.2/1.2.
  set_theta(sim, [](int i, int j, int k) {
    if (k == 0) return j == 0 ? (i <= 6 ? -1.0 : i == 7 ? 0.2 : 1.0) : 1.0;
    return -1.0;
  });
  EXPECT_NEAR(lock_diagnostics(sim, lock_of(c, 0.9)).fronts.floor_x, 6.5 + 0.2 / 1.2, eps);
}

// T's integrals of a constructed field on 6 x 2 x 4 unit cells, theta = i - 2k about a
// reference T_ref = 0.5 (the mean of fluids at 0 and 1): sum theta = 2 * 4 * 15 - 2 * 6 * 2 * 6
// = -24, so the heat, sum (theta + T_ref), is -24 + 48 * 0.5 = 0; PE = -b sum theta z over the
// centres z = k + 1/2, -(2 sum_i sum_k (i - 2k)(k + 1/2)) = -2 (15 * 8 - 6 * 2 * 17) = 168 (T_ref's
// part is constant and left out); T_min = -6 + 0.5, T_max = 5 + 0.5. Exact in float too.
template <class R>
void check_temperature_integrals_of_a_constructed_field(const Backend& be) {
  Case c = lock_box_case({6, 2, 4}, 3.0);
  c.initial.left = 0;
  c.physics.reference_temperature = 0.5;
  c.faces[4] = c.faces[5] = wall(VelocityBC::free_slip);
  FlowSimulation<R> sim(c, be);
  ASSERT_EQ(sim.reference().at(1.0), 0.5);
  set_theta(sim, [](int i, int, int k) { return double(i - 2 * k); });
  const TemperatureIntegrals t = lock_diagnostics(sim, lock_of(c)).temperature;
  EXPECT_EQ(t.heat, 0.0) << precision_name<R>();
  EXPECT_EQ(t.potential_energy, 168.0);
  EXPECT_EQ(t.T_min, -5.5);
  EXPECT_EQ(t.T_max, 5.5);
}

// The diffusive conversion of a random theta between insulating walls telescopes, column by
// column, to kappa b_T A (<T>_top row - <T>_bottom row): the continuum's value, held exactly
// by the discretization (physics/lock_exchange.hpp). 8 x 3 x 6 unit cells, kappa = 0.02.
template <class R>
void check_conversion_is_kappa_b_area_top_minus_bottom(const Backend& be) {
  Case c = lock_box_case({8, 3, 6}, 4.0);
  c.faces[0] = c.faces[1] = wall(VelocityBC::no_slip);
  c.faces[4] = c.faces[5] = wall(VelocityBC::free_slip);
  FlowSimulation<R> sim(c, be);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> T(8 * 3 * 6);
  for (double& t : T) t = double(R(uniform(rng)));  // exact in R
  set_theta(sim, [&](int i, int j, int k) { return T[i + 8 * (j + 3 * k)]; });
  double top = 0, bottom = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 8; ++i) {
      top += T[i + 8 * (j + 3 * 5)];
      bottom += T[i + 8 * j];
    }
  const double kappa = c.physics.kappa, b = c.physics.buoyancy;
  const double expected = kappa * b * (top - bottom);  // A = 24 unit cells, the means' 1/24 cancels
  const EnergyRates r = rates_of(sim);
  // Each cell's Laplacian reads values of 1 with 1/h^2 = 1 (6 per point), times z up to 5.5, over 144 cells.
  EXPECT_NEAR(r.conversion, expected, roundoff_tolerance<R>(kappa * b * 144 * 5.5 * 8)) << precision_name<R>();
  EXPECT_EQ(r.dissipation, 0.0) << "at rest";
}

// The viscous dissipation of a uniform stream u = U between plates, periodic in x and y: the
// Laplacian of u is zero but in the cells next to a no-slip plate, whose ghost -U (the value 0
// on the plate) gives -2U/dz^2: epsilon = nu dV (2 rows)(nx ny faces) 2U^2/dz^2. Between free-slip
// plates the stream is at rest relative to them and dissipates nothing. 4 x 2 x 5 unit cells.
template <class R>
void check_dissipation_of_a_uniform_stream(const Backend& be) {
  for (VelocityBC plates : {VelocityBC::no_slip, VelocityBC::free_slip}) {
    Case c = lock_box_case({4, 2, 5}, 2.0);
    c.faces[4] = c.faces[5] = wall(plates);
    FlowSimulation<R> sim(c, be);
    const double U = 0.75;
    set_interior_values(sim.field("u"), std::vector<double>(5 * 2 * 5, U));  // faces 0..4 of each row
    set_theta(sim, [](int, int, int) { return 0.0; });
    const EnergyRates r = rates_of(sim);
    const double expected = plates == VelocityBC::no_slip ? c.physics.nu * 2 * 8 * 2 * U * U : 0.0;
    EXPECT_NEAR(r.dissipation, expected, roundoff_tolerance<R>(c.physics.nu * 4 * U * U * 40))
        << precision_name<R>() << (plates == VelocityBC::no_slip ? " no-slip" : " free-slip");
    EXPECT_EQ(r.conversion, 0.0);
  }
}

}  // namespace bouss::test
