// Checks of the step as the device takes it (any backend: physics suite on the CPU, gpu
// suite on CUDA): the dt planned on the device is the host's formula bit for bit and the run
// lands on time.end; a pressure solve of fixed passes, and the whole step replayed as a CUDA
// graph, give the bits of the checked solve launched kernel by kernel.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "line_solver_checks.hpp"
#include "run_checks.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "model/simulation.hpp"

namespace bouss::test {

// Step after step of convection from noise (dt set by the CFL limit of a flow in motion, or
// fixed), the dt the device planned equals the host's stable_time_step and clip_to_landing of
// the state the step started from, and the time is the sum of the steps but where a step
// lands: on each landing time (every 0.7, as output times are) and on time.end, exactly.
inline void check_device_time_step(const Backend& be, const std::vector<std::string>& overrides) {
  std::vector<std::string> o = overrides;
  o.push_back("time.steps=1000");
  o.push_back("time.end=6.0");
  const Case c = restart_case("", o);
  auto sim = make_simulation(c, be);
  int steps = 0;
  double smallest = 1e300, largest = 0;
  int landed = 0;
  double land = 0.7;
  while (!sim->finished()) {
    // Every multiple of 0.7 (an output time) is landed on, as time.end is.
    if (sim->time() >= land) land = 0.7 * (landed + 1);
    sim->land_at(land);
    const double host = sim->next_dt(), before = sim->time();
    sim->step();
    ASSERT_EQ(sim->last_dt(), host) << "step " << steps << ": the device's dt is not the host's formula";
    if (sim->time() == land || sim->time() == 6.0) ++landed;
    else ASSERT_EQ(sim->time(), before + host) << "step " << steps;
    ASSERT_LE(sim->time(), std::min(land, 6.0)) << "step " << steps << " stepped over a landing time";
    smallest = std::min(smallest, host);
    largest = std::max(largest, host);
    ++steps;
  }
  EXPECT_GT(steps, 10);
  EXPECT_LT(smallest, largest) << "dt never changed: nothing was compared but a constant";
  EXPECT_EQ(landed, 9) << "0.7 .. 5.6 and 6";
  EXPECT_EQ(sim->time(), 6.0) << "the run did not land on time.end";
}

// From rest the advective limit does not bind, and only the diffusive limit did: at
// Ra = 1e10 (free-fall units) that ran a case to t = 60 in one step. The buoyancy limit
// sqrt(cfl h / (b_T dT)) binds instead: the restart case's plates 1 apart and its noise of
// amplitude 0.2 make dT = 1.4 on cells of h = 0.125 (physics/time_step.hpp).
inline void check_buoyancy_limit_from_rest(const Backend& be) {
  const Case c = restart_case("", {"physics.rayleigh=1e10", "time.end=60", "time.steps=100000"});
  auto sim = make_simulation(c, be);
  const double expected = std::sqrt(0.5 * 0.125 / (c.physics.buoyancy * 1.4));
  EXPECT_DOUBLE_EQ(sim->next_dt(), expected) << "the host's first dt";
  sim->step();
  EXPECT_DOUBLE_EQ(sim->last_dt(), expected) << "the device's first dt";
  EXPECT_LT(sim->time(), 60.0 / 200) << "one step ran far into the case";
  // And dt keeps the host's formula bit for bit as the flow takes over from the limit.
  check_device_time_step(be, {"physics.rayleigh=1e10"});
}

// The case's state after `steps` steps, every array of a checkpoint.
inline std::vector<std::vector<double>> state_after(const Backend& be, const std::vector<std::string>& overrides,
                                                    int steps) {
  const Case c = restart_case("", overrides);
  auto sim = make_simulation(c, be);
  for (int s = 0; s < steps; ++s) sim->step();
  std::vector<std::vector<double>> state;
  for (const std::string& name : sim->state_names()) state.push_back(sim->host_values(name));
  return state;
}

// The fft solve with residual checks on every step, and with checks every 10 steps and the
// steps between replayed as CUDA graphs or launched kernel by kernel: 25 steps (two
// checks, 23 solves of fixed passes, two graphs per parity) give the same bits. In single
// precision only the last two are compared: a check may take refinements the fixed passes
// between repeat, or not.
// With `solver` the multigrid (every level on the backend), only the first comparison: its
// checks may take another number of cycles than the fixed passes between repeat.
inline void check_fixed_passes_and_graphs(const Backend& be, const std::string& precision,
                                          const std::string& solver = "fft") {
  std::vector<std::string> base = {"pressure.solver=\"" + solver + "\"", "precision=\"" + precision + "\"",
                                   precision == "single" ? "pressure.tolerance=1e-5" : "pressure.tolerance=1e-8"};
  if (solver == "multigrid") base.push_back("pressure.cpu_coarse_cells=0");
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return extra;
  };
  const auto graphs = state_after(be, with({"pressure.check_interval=10", "pressure.cuda_graphs=true"}), 25);
  const auto launches = state_after(be, with({"pressure.check_interval=10", "pressure.cuda_graphs=false"}), 25);
  EXPECT_EQ(graphs, launches) << "the step replayed as a graph is not the step launched kernel by kernel";
  if (precision == "double" && solver == "fft") {
    const auto checked = state_after(be, with({"pressure.check_interval=1"}), 25);
    EXPECT_EQ(launches, checked) << "the solve of fixed passes is not the checked solve's";
  }
}

// A solve of fixed passes (no residual measured, the means taken out on the device) leaves x
// with the bits of the checked solve that took as many cycles: the point multigrid with every
// level on the backend (fp64 cycles, and fp32 cycles inside fp64 defect correction) and the
// fft solve, from a random right-hand side and x = 0.
template <class R>
void check_solve_of_fixed_passes(const Backend& be) {
  const Grid g = fourier_grid(false, {32, 16, 16}, sizeof(R));
  const FieldBC bc = pressure_walls(true, true);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant == 0 ? "multigrid" : variant == 1 ? "multigrid, fp32 cycles" : "fft");
    if (variant == 1 && sizeof(R) == sizeof(float)) continue;
    MultigridOptions o;
    o.mixed_precision = variant == 1;
    o.cpu_coarse_cells = 0;
    auto make = [&]() -> std::unique_ptr<PressureSolver<R>> {
      if (variant == 2) return std::make_unique<FourierSolver<R>>(be, g, bc);
      return std::make_unique<Multigrid<R>>(be, g, bc, o);
    };
    const auto checked_solver = make(), fixed_solver = make();
    ASSERT_TRUE(fixed_solver->solves_in_fixed_passes());
    Field<R> x1(be, g.layout, Stagger::centre, "x1"), x2(be, g.layout, Stagger::centre, "x2");
    Field<R> b1(be, g.layout, Stagger::centre, "b1"), b2(be, g.layout, Stagger::centre, "b2");
    for (Field<R>* f : {&x1, &x2, &b1, &b2}) fill(*f, 0);
    random_rhs(b1, g, 11);
    random_rhs(b2, g, 11);
    const SolveStats checked = checked_solver->solve(x1, b1, sizeof(R) == sizeof(float) ? 1e-5 : 1e-9);
    ASSERT_TRUE(checked.converged);
    ASSERT_GE(checked.cycles, variant == 2 ? 1 : 3);
    const SolveStats fixed = fixed_solver->solve_passes(x2, b2, checked.cycles, LentArrays<R>{});
    EXPECT_FALSE(fixed.checked);
    EXPECT_EQ(fixed.cycles, checked.cycles);
    EXPECT_EQ(interior_values(x2), interior_values(x1)) << "the solve of fixed passes is not the checked solve's";
    EXPECT_EQ(interior_values(b2), interior_values(b1)) << "b's mean was not taken out alike";
  }
}

}  // namespace bouss::test
