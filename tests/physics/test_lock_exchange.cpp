// The lock exchange of paper 004's precision benchmark (cases/lock_exchange.json), small:
// with insulating, no-slip walls the heat content (the sum of T over the cells) is conserved
// by the flux-form advection and diffusion to the round-off of the run's precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "io/case.hpp"
#include "solver/flow_simulation.hpp"
#include "test_support.hpp"

using namespace bouss;

namespace {

Case lock_case(const std::string& precision) {
  const std::string path = std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange.json";
  return load_case(path, {"grid.n=[16,16,16]", "precision=\"" + precision + "\"", "output=[]", "time.steps=40"});
}

// Sum of T and sum of |T| over the cells.
std::pair<double, double> heat(const Simulation& sim) {
  double sum = 0, size = 0;
  for (double t : sim.host_values("T")) {
    sum += t;
    size += std::fabs(t);
  }
  return {sum, size};
}

template <class R>
void check_heat_conserved(const std::string& precision, double relative) {
  const Case c = lock_case(precision);
  FlowSimulation<R> sim(c, Backend::cpu());
  const auto [initial, size] = heat(sim);
  // The initial T is the case's tanh step, at the cell centres.
  const std::vector<double> T = sim.host_values("T");
  const double x = sim.grid().coordinate(Stagger::centre, 0, 3);
  EXPECT_NEAR(T[3], R(2 * std::tanh(x - 0.5)), 1e-15);
  while (!sim.finished()) sim.step();
  EXPECT_GT(sim.kinetic_energy(), 0) << "the fluids started to move";
  EXPECT_NEAR(heat(sim).first, initial, relative * size) << precision;
}

}  // namespace

TEST(LockExchange, HeatIsConservedToDoubleRoundOff) { check_heat_conserved<double>("double", 1e-13); }

TEST(LockExchange, HeatIsConservedToSingleRoundOff) { check_heat_conserved<float>("single", 2e-6); }

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
