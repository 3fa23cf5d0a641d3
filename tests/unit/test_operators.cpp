#include "field_ops_checks.hpp"
#include "operator_checks.hpp"

using namespace bouss;
using namespace bouss::test;

TEST(Operators, DivergenceExactOnLinearAndQuadraticVelocity) { check_divergence_exact(Backend::cpu()); }
TEST(Operators, GradientExactOnQuadraticPressure) { check_gradient_exact(Backend::cpu()); }
TEST(Operators, LaplacianExactOnQuadraticFieldsAtEveryStaggering) { check_laplacian_exact(Backend::cpu()); }
TEST(Operators, ScalarAdvectionExactOnQuadraticFluxes) { check_scalar_advection_exact(Backend::cpu()); }
TEST(Operators, MomentumAdvectionExactOnLinearVelocity) { check_momentum_advection_exact(Backend::cpu()); }
TEST(Operators, BuoyancyExactOnLinearTemperature) { check_buoyancy_exact(Backend::cpu()); }

TEST(Operators, AB2CoefficientsReduceToEulerThenMatchVariableStepFormula) {
  const AB2Coefficients first = AB2Coefficients::make(0.1, 0.0, true);
  EXPECT_EQ(first.a, 1.0);
  EXPECT_EQ(first.b, 0.0);
  const AB2Coefficients same = AB2Coefficients::make(0.1, 0.1, false);
  EXPECT_DOUBLE_EQ(same.a, 1.5);
  EXPECT_DOUBLE_EQ(same.b, -0.5);
  // dt = 2 dt_old: the extrapolation to t + dt/2 from G at t and t - dt_old.
  const AB2Coefficients doubled = AB2Coefficients::make(0.2, 0.1, false);
  EXPECT_DOUBLE_EQ(doubled.a, 2.0);
  EXPECT_DOUBLE_EQ(doubled.b, -1.0);
}

TEST(FieldOps, RemoveMeanMaxAbsReturnsTheNormOfTheShiftedField) { check_remove_mean_max_abs(Backend::cpu()); }
TEST(FieldOps, ReductionsSeeANaNInAnyCell) { check_reductions_see_nan(Backend::cpu()); }
TEST(FieldOps, CpuSumsDoNotDependOnTheThreadCount) { check_sum_independent_of_threads(); }
TEST(FieldOps, CpuLevelSumsAreExactlyEachLevelsSum) { check_level_sums(Backend::cpu(), true); }
