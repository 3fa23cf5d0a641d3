// The projection leaves max|div u| at round-off (below 1e-10 of max|u|/h), on periodic,
// wall-bounded and mixed boxes, and the multigrid it relies on converges.
#include <gtest/gtest.h>

#include <random>

#include "grid/field_ops.hpp"
#include "projection_checks.hpp"

using namespace bouss;
using namespace bouss::test;

TEST(Projection, LeavesDivergenceAtRoundOffWithPeriodicSidesAndPlates) {
  check_projection(Backend::cpu(), projection_case_plates());
}

TEST(Projection, LeavesDivergenceAtRoundOffInAClosedBox) {
  check_projection(Backend::cpu(), projection_case_closed());
}

TEST(Projection, LeavesDivergenceAtRoundOffOnOddFactorGrid) {
  Case c = projection_case_plates();
  c.n = {24, 12, 6};  // 24x12x6 -> 12x6x3 -> 6x3x3 (z stops) -> 3x3x3
  check_projection(Backend::cpu(), c);
}

TEST(Multigrid, VCycleReducesResidualByAtLeastFivePerCycle) {
  // Random right-hand side, Neumann walls in z and periodic sides: a few V(2,2) cycles.
  Case c = projection_case_plates();
  c.n = {32, 32, 16};
  const Grid g = Grid::make(c.n, {0, 0, 0}, {2, 2, 1});
  const FlowConditions bc = flow_conditions(c);
  Multigrid<double> mg(Backend::cpu(), g, bc.pressure);
  Field<double> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x, 0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  set_field(b, g, [&](double, double, double) { return U(rng); });
  const SolveStats s = mg.solve(x, b, 1e-10);
  ASSERT_TRUE(s.converged);
  ASSERT_GE(s.residual_history.size(), 3u);
  for (std::size_t i = 1; i < s.residual_history.size(); ++i)
    EXPECT_LT(s.residual_history[i], s.residual_history[i - 1] / 5) << "cycle " << i;
  // The discrete solution satisfies the discrete equation to the tolerance.
  EXPECT_LE(mg.residual_norm(x, b), 1e-10 * max_abs(b, g.layout.interior(Stagger::centre)));
  // Singular problem: the mean of the answer is zero, it does not drift.
  EXPECT_LT(std::fabs(sum(x, g.layout.interior(Stagger::centre))) / g.layout.cells(), 1e-12);
}
