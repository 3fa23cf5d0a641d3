// The lock exchange of paper 004's precision benchmark (cases/lock_exchange.json), small:
// with insulating, no-slip walls the heat content (the sum of T over the cells) is conserved
// by the flux-form advection and diffusion to the round-off of the run's precision. The
// gravity currents of a channel (cases/lock_exchange_2d.json's kind, small): the fronts of the
// symmetric case, the energy budget's closure with resolution, and the budget across a restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/lock_exchange_diagnostics.hpp"
#include "config/case.hpp"
#include "physics/lock_exchange.hpp"
#include "run_checks.hpp"
#include "model/flow_simulation.hpp"
#include "test_support.hpp"
#include "validation/front.hpp"

using namespace bouss;

namespace {

Case lock_case(const std::string& precision, std::vector<std::string> overrides = {}) {
  const std::string path = std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange.json";
  overrides.insert(overrides.end(), {"grid.n=[16,16,16]", "precision=\"" + precision + "\"", "output=[]", "time.steps=40"});
  return load_case(path, overrides);
}

// The heat sum T dV over the cells and its size sum |T| dV (dV the cell's own volume).
std::pair<double, double> heat(const Simulation& sim) {
  const Grid& g = sim.grid();
  const std::vector<double> T = sim.host_values("T");
  double sum = 0, size = 0;
  std::size_t p = 0;
  for (int k = 0; k < g.layout.n[2]; ++k)
    for (int j = 0; j < g.layout.n[1]; ++j)
      for (int i = 0; i < g.layout.n[0]; ++i, ++p) {
        const double dV = g.cell_volume(i, j, k);
        sum += T[p] * dV;
        size += std::fabs(T[p]) * dV;
      }
  return {sum, size};
}

// The closed box's heat stays what it was to round-off; the lock diagnostic's heat is sum T dV.
template <class R>
void check_heat_conserved(const std::string& precision, double relative, const std::vector<std::string>& grid = {}) {
  const Case c = lock_case(precision, grid);
  FlowSimulation<R> sim(c, Backend::cpu());
  const auto [initial, size] = heat(sim);
  const Lock lock = lock_of(c);
  const double diagnosed = lock_diagnostics(sim, lock).temperature.heat;
  EXPECT_NEAR(diagnosed, initial, 1e-14 * size) << "the heat diagnostic is sum T dV";
  // The initial T is the case's tanh step, at the cell centres.
  const std::vector<double> T = sim.host_values("T");
  const double x = sim.grid().coordinate(Stagger::centre, 0, 3);
  EXPECT_NEAR(T[3], R(2 * std::tanh(x - 0.5)), 1e-15);
  while (!sim.finished()) sim.step();
  EXPECT_GT(sim.kinetic_energy(), 0) << "the fluids started to move";
  EXPECT_NEAR(heat(sim).first, initial, relative * size) << precision;
  EXPECT_NEAR(lock_diagnostics(sim, lock).temperature.heat, diagnosed, relative * size) << precision;
}

}  // namespace

TEST(LockExchange, HeatIsConservedToDoubleRoundOff) { check_heat_conserved<double>("double", 1e-13); }

TEST(LockExchange, HeatIsConservedToSingleRoundOff) { check_heat_conserved<float>("single", 2e-6); }

// The box stretched towards all six walls (grid.x, grid.y and grid.z of the case file): the
// flux form keeps the heat through the direct solve on the axes' eigenbases.
TEST(LockExchange, HeatIsConservedInABoxStretchedTowardsEveryWall) {
  const std::string tanh = R"({"stretching": "tanh", "parameter": 1.2})";
  const std::vector<std::string> grid = {"grid.x=" + tanh, "grid.y=" + tanh, "grid.z=" + tanh};
  check_heat_conserved<double>("double", 1e-13, grid);
  check_heat_conserved<float>("single", 2e-6, grid);
  ASSERT_TRUE(lock_case("double", grid).stretched(0));
}

namespace {

// max |a - b| / max |b| over the values.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, size = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::fabs(a[i] - b[i]));
    size = std::max(size, std::fabs(b[i]));
  }
  return d / size;
}

// The same case in both precisions for `steps` steps of a fixed dt: double solves its
// pressure to 1e-10, single to `single_tolerance`; returns the largest relative difference
// of T and of the velocity.
std::pair<double, double> single_against_double(const std::string& file, const std::vector<std::string>& sets,
                                                 const std::string& single_tolerance) {
  const std::string path = std::string(BOUSS_SOURCE_DIR) + "/cases/" + file;
  std::vector<std::string> d = sets, s = sets;
  d.push_back("pressure.tolerance=1e-10");
  s.push_back("precision=\"single\"");
  s.push_back("pressure.tolerance=" + single_tolerance);
  FlowSimulation<double> sd(load_case(path, d), Backend::cpu());
  FlowSimulation<float> sf(load_case(path, s), Backend::cpu());
  while (!sd.finished()) sd.step();
  while (!sf.finished()) sf.step();
  double velocity = 0;
  for (const char* name : {"u", "v", "w"})
    velocity = std::max(velocity, relative_difference(sf.host_values(name), sd.host_values(name)));
  return {relative_difference(sf.host_values("T"), sd.host_values("T")), velocity};
}

}  // namespace

// Over the first steps single precision follows double to its own accuracy: T to a few
// float epsilons (1e-6), the velocity to about the single run's pressure tolerance (1e-5:
// measured 2.3e-5 and 1.5e-5; asked for 3e-3 instead, Rayleigh-Benard is off by 9e-5).
TEST(Precision, SingleFollowsDoubleOverTheFirstStepsOfTheLockExchange) {
  const auto [T, u] = single_against_double(
      "lock_exchange.json", {"grid.n=[16,16,16]", "output=[]", "time.steps=20", "time.dt=1e-4"}, "1e-5");
  std::printf("lock exchange, 20 steps: single against double, T %.2e, velocity %.2e\n", T, u);
  EXPECT_LT(T, 1e-6);
  EXPECT_LT(u, 5e-5);
}

TEST(Precision, SingleFollowsDoubleOverTheFirstStepsOfRayleighBenard) {
  const auto [T, u] = single_against_double(
      "rayleigh_benard.json", {"grid.n=[16,16,8]", "output=[]", "time.steps=20", "time.dt=2e-3", "time.end=1000"},
      "1e-5");
  std::printf("Rayleigh-Benard, 20 steps: single against double, T %.2e, velocity %.2e\n", T, u);
  EXPECT_LT(T, 1e-6);
  EXPECT_LT(u, 5e-5);
}

namespace {

// The full-depth lock exchange of cases/lock_exchange_2d.json in a channel of 16 x 2 (h = 1),
// with the same velocity condition on the floor and the lid (`plates`), at Gr = 1e4 (Re = 100,
// stable on coarse grids), the lock at x = 8 with an interface of thickness 0.25, to t = end.
// Its flow is symmetric under the half-turn about the channel's centre, which exchanges the
// fluids and the floor with the lid.
Case symmetric_lock(const std::string& plates, int nz, double end, const std::vector<std::string>& sets = {}) {
  const std::string text = R"({
  "name": "lock_symmetric",
  "grid": {"n": [128, 1, 16], "extent": [[0, 16], [0, 0.125], [0, 2]]},
  "physics": {"grashof": 1e4, "schmidt": 0.71, "reduced_gravity": 1.0},
  "boundaries": {
    "x_lo": {"velocity": "no_slip", "temperature": "insulating"},
    "x_hi": {"velocity": "no_slip", "temperature": "insulating"},
    "y_lo": "periodic", "y_hi": "periodic",
    "z_lo": {"velocity": "PLATES", "temperature": "insulating"},
    "z_hi": {"velocity": "PLATES", "temperature": "insulating"}
  },
  "initial": {"temperature": {"profile": "lock", "left": -0.5, "right": 0.5, "position": 8, "thickness": 0.25}},
  "time": {"end": 12, "cfl": 0.5},
  "pressure": {"tolerance": 1e-8},
  "output": []
})";
  std::string t = text;
  for (std::size_t at; (at = t.find("PLATES")) != std::string::npos;) t.replace(at, 6, plates);
  std::vector<std::string> all = {"grid.n=[" + std::to_string(8 * nz) + ",1," + std::to_string(nz) + "]",
                                   "time.end=" + std::to_string(end)};
  all.insert(all.end(), sets.begin(), sets.end());
  return parse_case(t, "lock_symmetric.json", all);
}

}  // namespace

// The symmetric case's fronts run in opposite directions (the floor's toward +x, the lid's
// toward -x) at the same speed, and at every step are the same distance from the lock: the
// half-turn maps the one onto the other. Both with free-slip and with no-slip plates, at
// 128x1x16 to t = 12 (the fronts travel 6.4 h and 4.6 h; the fits run from 3 h to t = 12).
// Measured: speeds 0.59626 (free-slip) and 0.39334 (no-slip) equal to 1e-10, positions at most
// 3e-15 apart with the direct solve (auto's choice); the multigrid's tolerance (1e-8) and the
// ordering of its red-black smoother, which the half-turn does not map onto itself, left
// 8e-10; 1e-6 allows for either.
TEST(LockExchange, FrontsOfTheSymmetricCaseRunOppositeWaysAtEqualSpeed) {
  for (const char* plates : {"free_slip", "no_slip"}) {
    SCOPED_TRACE(plates);
    const FrontMeasurement m = measure_fronts(symmetric_lock(plates, 16, 12), Backend::cpu(), 0.5);
    ASSERT_TRUE(m.floor.fitted() && m.lid.fitted()) << m.floor.problem << m.lid.problem;
    double apart = 0;
    for (std::size_t i = 0; i < m.t.size(); ++i)
      apart = std::max(apart, std::fabs(m.floor_travelled[i] - m.lid_travelled[i]));
    std::printf("%s: floor U %.10f, lid U %.10f; travelled at most %.2e apart; Fr %.4f\n", plates, m.floor.speed,
                m.lid.speed, apart, m.froude_floor);
    EXPECT_GT(m.floor.speed, 0.3) << "the floor front runs toward +x, away from the dense side";
    EXPECT_GT(m.lid.speed, 0.3) << "the lid front runs toward -x";
    EXPECT_GT(m.floor_travelled.back(), 4.0);
    EXPECT_NEAR(m.floor.speed, m.lid.speed, 1e-6 * m.floor.speed);
    EXPECT_LT(apart, 1e-6);
  }
}

// E = KE + PE + int epsilon dt - int phi_d dt is conserved up to the time discretization, so
// its residual at t = 6 shrinks with resolution, dt shrinking with h under the CFL limit (and
// with h^2 once the diffusive limit binds). Measured at 64x1x8, 128x1x16, 256x1x32 (50, 88,
// 244 steps): 1.19e-3, 2.61e-4, 2.48e-5, ratios 4.6 and 10.5 (at 512x1x64, 893 steps, 1.6e-6:
// 15); 2.5e-5 is 7e-5 of the potential energy released. The heat is conserved to round-off.
TEST(LockExchange, EnergyBudgetClosesToTheDiscretizationErrorConvergingWithResolution) {
  std::vector<double> residual;
  double relative = 0;
  for (int nz : {8, 16, 32}) {
    const FrontMeasurement m = measure_fronts(symmetric_lock("free_slip", nz, 6), Backend::cpu(), 0.5);
    std::printf("nz %d: %ld steps, energy residual %.3e (%.3e of the PE released), heat drift %.1e\n", nz, m.steps,
                m.energy_residual, m.energy_residual_relative, m.heat_drift);
    residual.push_back(std::fabs(m.energy_residual));
    relative = std::fabs(m.energy_residual_relative);
    EXPECT_LT(std::fabs(m.heat_drift), 1e-14);
  }
  EXPECT_GT(residual[0] / residual[1], 3.5) << "at least second order from 8 to 16";
  EXPECT_GT(residual[1] / residual[2], 3.5) << "and from 16 to 32";
  EXPECT_LT(relative, 1e-4) << "at 256x1x32, of the potential energy released";
}

// The same on a grid stretched towards the end walls (x) and the plates (z), tanh 1 each:
// the half-turn maps the grid onto itself, so the fronts still run opposite ways at equal
// speeds; the heat is conserved to round-off, and the energy budget's residual shrinks at
// second order (measured: -3.14e-3, -8.58e-4, -2.13e-4 at nz 8, 16, 32). Stretched along x
// alone it closes as on the uniform grid, to the time error (5.3e-4, 4.2e-5, -3.6e-6); a
// stretched z leaves a second-order spatial residual (-2.43e-3, -7.48e-4, -1.99e-4).
TEST(LockExchange, OnAStretchedGridTheFrontsStaySymmetricAndTheBudgetCloses) {
  const std::vector<std::string> stretched = {R"(grid.x={"stretching": "tanh", "parameter": 1})",
                                              R"(grid.z={"stretching": "tanh", "parameter": 1})"};
  const FrontMeasurement m = measure_fronts(symmetric_lock("no_slip", 16, 12, stretched), Backend::cpu(), 0.5);
  ASSERT_TRUE(m.floor.fitted() && m.lid.fitted()) << m.floor.problem << m.lid.problem;
  EXPECT_GT(m.floor_travelled.back(), 3.0);
  EXPECT_NEAR(m.floor.speed, m.lid.speed, 1e-6 * m.floor.speed);
  std::vector<double> residual;
  for (int nz : {8, 16, 32}) {
    const FrontMeasurement b = measure_fronts(symmetric_lock("free_slip", nz, 6, stretched), Backend::cpu(), 0.5);
    std::printf("stretched nz %d: %ld steps, energy residual %.3e, heat drift %.1e\n", nz, b.steps, b.energy_residual,
                b.heat_drift);
    residual.push_back(std::fabs(b.energy_residual));
    EXPECT_LT(std::fabs(b.heat_drift), 1e-14);
  }
  EXPECT_GT(residual[0] / residual[1], 3.5) << "at least second order from 8 to 16";
  EXPECT_GT(residual[1] / residual[2], 3.5) << "and from 16 to 32";
}

// The direct solve (cosine transforms along the walled x) and the multigrid solve the same
// discrete equations, so the fronts they carry run at the same speeds: at 128x1x16 to t = 12
// with no-slip plates, the multigrid converged to 1e-12 (measured: the speeds equal in the 12
// digits printed; the 2D lock exchange's own case at 1024x1x64 on an H100, to 2e-10).
TEST(LockExchange, TheDirectSolveGivesTheMultigridsFrontSpeeds) {
  const FrontMeasurement direct =
      measure_fronts(symmetric_lock("no_slip", 16, 12, {"pressure.solver=direct"}), Backend::cpu(), 0.5);
  const FrontMeasurement mg = measure_fronts(
      symmetric_lock("no_slip", 16, 12, {"pressure.solver=multigrid", "pressure.tolerance=1e-12"}), Backend::cpu(), 0.5);
  ASSERT_TRUE(direct.floor.fitted() && direct.lid.fitted() && mg.floor.fitted() && mg.lid.fitted());
  std::printf("floor U: direct %.12f, multigrid %.12f; lid U: direct %.12f, multigrid %.12f\n", direct.floor.speed,
              mg.floor.speed, direct.lid.speed, mg.lid.speed);
  EXPECT_NEAR(direct.floor.speed, mg.floor.speed, 1e-6 * mg.floor.speed);
  EXPECT_NEAR(direct.lid.speed, mg.lid.speed, 1e-6 * mg.lid.speed);
  EXPECT_EQ(direct.t.size(), mg.t.size()) << "the same steps";
}
