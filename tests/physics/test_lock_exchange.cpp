// The lock exchange of paper 004's precision benchmark (cases/lock_exchange.json), small:
// with insulating, no-slip walls the heat content (the sum of T over the cells) is conserved
// by the flux-form advection and diffusion to the round-off of the run's precision.
#include <gtest/gtest.h>

#include <cmath>
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
