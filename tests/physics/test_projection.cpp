// The projection leaves max|div u| at round-off, on periodic, wall-bounded and mixed boxes,
// and the multigrid it relies on converges; in both precisions of the fields.
#include <gtest/gtest.h>

#include <random>

#include "grid/field_ops.hpp"
#include "multigrid_checks.hpp"
#include "projection_checks.hpp"

using namespace bouss;
using namespace bouss::test;

// Projection<double> and Projection<float> (gtest: Projection/0 and /1).
template <class R>
class Projection : public ::testing::Test {};
TYPED_TEST_SUITE(Projection, Precisions);

TYPED_TEST(Projection, LeavesDivergenceAtRoundOffWithPeriodicSidesAndPlates) {
  check_projection<TypeParam>(Backend::cpu(), projection_case_plates<TypeParam>());
}

TYPED_TEST(Projection, LeavesDivergenceAtRoundOffInAClosedBox) {
  check_projection<TypeParam>(Backend::cpu(), projection_case_closed<TypeParam>());
}

TYPED_TEST(Projection, LeavesDivergenceAtRoundOffOnOddFactorGrid) {
  Case c = projection_case_plates<TypeParam>();
  c.n = {24, 12, 6};  // 24x12x6 -> 12x6x3 -> 6x3x3 (z stops) -> 3x3x3
  check_projection<TypeParam>(Backend::cpu(), c);
}

// MultigridVCycle<double> and MultigridVCycle<float>: in double to 1e-10, every cycle
// counted; in float to 1e-4, the factor measured while the residual stays above ten times
// its round-off level (multigrid_checks.hpp; about 1.7e-6 here).
template <class R>
class MultigridVCycle : public ::testing::Test {};
TYPED_TEST_SUITE(MultigridVCycle, Precisions);

TYPED_TEST(MultigridVCycle, ReducesResidualByAtLeastFivePerCycle) {
  using R = TypeParam;
  // Random right-hand side, Neumann walls in z and periodic sides: a few V(2,2) cycles.
  const Case c = projection_case_plates<R>();
  const std::array<int, 3> n = {32, 32, 16};
  const Grid g = Grid::make(n, {0, 0, 0}, {2, 2, 1}, 1, sizeof(R));
  const FlowConditions bc = flow_conditions(c, reference_profile(c));
  Multigrid<R> mg(Backend::cpu(), g, bc.pressure);
  Field<R> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x, 0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  set_field(b, g, [&](double, double, double) { return U(rng); });
  const double tolerance = sizeof(R) == sizeof(float) ? 1e-4 : 1e-10;
  const SolveStats s = mg.solve(x, b, tolerance);
  ASSERT_TRUE(s.converged);
  ASSERT_GE(s.residual_history.size(), 3u);
  const std::vector<double> factors = factors_above_roundoff(s.residual_history, residual_roundoff(g, x, b), 10);
  ASSERT_GE(factors.size(), 2u) << "cycles measured above round-off";
  if (sizeof(R) == sizeof(double)) EXPECT_EQ(factors.size() + 1, s.residual_history.size()) << "every cycle counts";
  for (std::size_t i = 0; i < factors.size(); ++i) EXPECT_LT(factors[i], 1.0 / 5) << "cycle " << i + 1;
  // The discrete solution satisfies the discrete equation to the tolerance.
  EXPECT_LE(mg.residual_norm(x, b), tolerance * max_abs(b, g.layout.interior(Stagger::centre)));
  // Singular problem: the mean of the answer is zero, it does not drift.
  EXPECT_LT(std::fabs(sum(x, g.layout.interior(Stagger::centre))) / g.layout.cells(),
            roundoff_tolerance<R>(max_abs(x, g.layout.interior(Stagger::centre))));
}
