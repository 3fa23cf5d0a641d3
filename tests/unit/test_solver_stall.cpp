// A pressure solve asked for less than its precision can resolve stops where the residual
// stops falling (SolveStats::stalled), instead of running to max_cycles; the run driver then
// names the round-off floor (run/run.cpp).
#include <gtest/gtest.h>

#include <random>

#include "grid/field_ops.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "test_support.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {

template <class R>
SolveStats solve_to(double tolerance, const MultigridOptions& opt) {
  const Grid g = Grid::make({16, 16, 16}, {0, 0, 0}, {1, 1, 1}, 1, sizeof(R));
  FieldBC bc;
  bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0};
  Multigrid<R> mg(Backend::cpu(), g, bc, opt);
  Field<R> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x, 0);
  std::vector<R> host(g.layout.size, 0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) host[g.layout.origin + g.layout.index(i, j, k)] = R(U(rng));
  b.from_host(host);
  return mg.solve(x, b, tolerance);
}

}  // namespace

TEST(SolverStall, BelowTheRoundOffFloorTheSolveStopsEarlyAndSaysSo) {
  MultigridOptions opt;
  opt.max_cycles = 50;
  // Double round-off is near 1e-15 of max|b| here; float's near 1e-6.
  const SolveStats d = solve_to<double>(1e-18, opt);
  EXPECT_TRUE(d.stalled);
  EXPECT_FALSE(d.converged);
  EXPECT_LT(d.cycles, 30) << "the stall is seen within a few cycles of the floor";
  EXPECT_LT(d.residual_history.back(), 1e-12);
  const SolveStats f = solve_to<float>(1e-10, opt);
  EXPECT_TRUE(f.stalled);
  EXPECT_FALSE(f.converged);
  EXPECT_LT(f.cycles, 20);
  EXPECT_GT(f.residual_history.back(), 1e-10);
  EXPECT_LT(f.residual_history.back(), 1e-4);
  // A tolerance the precision reaches converges, without a stall.
  const SolveStats ok = solve_to<float>(1e-4, opt);
  EXPECT_TRUE(ok.converged);
  EXPECT_FALSE(ok.stalled);
  const SolveStats ok_d = solve_to<double>(1e-10, opt);
  EXPECT_TRUE(ok_d.converged);
  EXPECT_FALSE(ok_d.stalled);
}
