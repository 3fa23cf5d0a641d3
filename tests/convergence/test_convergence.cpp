// Observed order of accuracy in space: the error of a decaying mode against its exact
// solution at three resolutions, with time steps small enough (dt ~ h^2) that AB2's error
// stays far below the spatial one. Second order means log2(e(h)/e(h/2)) = 2 +- 0.1.
#include <gtest/gtest.h>

#include <cmath>

#include "solver/flow_simulation.hpp"
#include "test_support.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {

double run_to_end(Simulation& sim) {
  while (!sim.finished()) sim.step();
  return sim.time();
}

// T = cos(2 pi x) cos(2 pi y) diffusing at rest: T(t) = exp(-8 pi^2 kappa t) T(0).
double diffusion_error(int n) {
  const double kappa = 1.0, h = 1.0 / n;
  Case c = box_case({n, n, 1}, {1.0, 1.0, 1.0}, 1.0, kappa, 0.0);
  c.time.steps.reset();
  c.time.end = 0.02;
  c.time.dt = 0.1 * h * h / kappa;
  FlowSimulation<double> sim(c, Backend::cpu());
  auto T0 = [](double x, double y, double) { return std::cos(2 * M_PI * x) * std::cos(2 * M_PI * y); };
  set_field(sim.flow().T, sim.grid(), T0);
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-8 * M_PI * M_PI * kappa * t);
  return max_error(sim.flow().T, sim.grid(), sim.grid().layout.interior(Stagger::centre),
                   [&](double x, double y, double z) { return decay * T0(x, y, z); });
}

// The Taylor-Green vortex u = sin x cos y, v = -cos x sin y on [0, 2 pi]^2: the nonlinear
// terms are balanced by the pressure and the flow decays as exp(-2 nu t).
double taylor_green_error(int n) {
  const double nu = 0.05, L = 2 * M_PI, h = L / n;
  Case c = box_case({n, n, 1}, {L, L, L / n}, nu, 0.0, 0.0);
  c.time.steps.reset();
  c.time.end = 1.0;
  c.time.dt = 0.25 * h * h;
  c.pressure.tolerance = 1e-11;
  FlowSimulation<double> sim(c, Backend::cpu());
  set_field(sim.flow().u, sim.grid(), [](double x, double y, double) { return std::sin(x) * std::cos(y); });
  set_field(sim.flow().v, sim.grid(), [](double x, double y, double) { return -std::cos(x) * std::sin(y); });
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-2 * nu * t);
  const Layout& Lay = sim.grid().layout;
  const double eu = max_error(sim.flow().u, sim.grid(), Lay.interior(Stagger::face_x),
                              [&](double x, double y, double) { return decay * std::sin(x) * std::cos(y); });
  const double ev = max_error(sim.flow().v, sim.grid(), Lay.interior(Stagger::face_y),
                              [&](double x, double y, double) { return -decay * std::cos(x) * std::sin(y); });
  return std::fmax(eu, ev);
}

void expect_second_order(const double e[3], const char* what) {
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  std::printf("%s: errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", what, e[0], e[1], e[2], p1, p2);
  EXPECT_NEAR(p1, 2.0, 0.1) << what;
  EXPECT_NEAR(p2, 2.0, 0.1) << what;
}

}  // namespace

TEST(Convergence, DiffusingModeIsSecondOrderInSpace) {
  const double e[3] = {diffusion_error(16), diffusion_error(32), diffusion_error(64)};
  expect_second_order(e, "diffusion");
}

TEST(Convergence, TaylorGreenVortexIsSecondOrderInSpace) {
  const double e[3] = {taylor_green_error(16), taylor_green_error(32), taylor_green_error(64)};
  expect_second_order(e, "Taylor-Green");
}
