#include "field_ops_checks.hpp"
#include "operator_checks.hpp"

using namespace bouss;
using namespace bouss::test;

// Each operator's exactness in both precisions: Operators.*<double> and Operators.*<float>.
template <class R>
class Operators : public ::testing::Test {};
TYPED_TEST_SUITE(Operators, Precisions);

TYPED_TEST(Operators, DivergenceExactOnLinearAndQuadraticVelocity) { check_divergence_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, GradientExactOnQuadraticPressure) { check_gradient_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, LaplacianExactOnQuadraticFieldsAtEveryStaggering) { check_laplacian_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, ScalarAdvectionExactOnQuadraticFluxes) { check_scalar_advection_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, MomentumAdvectionExactOnLinearVelocity) { check_momentum_advection_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, BuoyancyExactOnLinearTemperature) { check_buoyancy_exact<TypeParam>(Backend::cpu()); }
TYPED_TEST(Operators, DivergenceExactOnAStretchedGrid) { check_divergence_exact<TypeParam>(Backend::cpu(), true); }
TYPED_TEST(Operators, BuoyancyExactOnAStretchedGrid) { check_buoyancy_exact<TypeParam>(Backend::cpu(), true); }
TYPED_TEST(Operators, DivergenceExactOnStretchedXYAndZ) { check_divergence_exact<TypeParam>(Backend::cpu(), true, true); }
TYPED_TEST(Operators, BuoyancyExactOnStretchedXYAndZ) { check_buoyancy_exact<TypeParam>(Backend::cpu(), true, true); }
TYPED_TEST(Operators, LinearFieldsExactOnStretchedXYAndZ) {
  check_linear_fields_exact_on_stretched_axes<TypeParam>(Backend::cpu());
}
TYPED_TEST(Operators, FluxFormsConserveOnAGridStretchedAlongEveryAxis) {
  check_conservation_on_a_stretched_grid<TypeParam>(Backend::cpu(), true);
}
TEST(Operators, SecondOrderOnStretchedXYAndZ) { check_second_order_on_stretched_axes(Backend::cpu()); }
TYPED_TEST(Operators, FluxFormsConserveOnAStretchedGrid) {
  check_conservation_on_a_stretched_grid<TypeParam>(Backend::cpu());
}

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

// Whole-field operations on fields of both precisions: FieldOps.*<double> and FieldOps.*<float>.
template <class S>
class FieldOps : public ::testing::Test {};
TYPED_TEST_SUITE(FieldOps, Precisions);

TYPED_TEST(FieldOps, RemoveMeanMaxAbsReturnsTheNormOfTheShiftedField) {
  check_remove_mean_max_abs_for<TypeParam>(Backend::cpu());
}
TYPED_TEST(FieldOps, ReductionsSeeANaNInAnyCell) { check_reductions_see_nan<TypeParam>(Backend::cpu()); }
TYPED_TEST(FieldOps, CpuSumsDoNotDependOnTheThreadCount) { check_sum_independent_of_threads<TypeParam>(); }
TYPED_TEST(FieldOps, CpuLevelSumsAreExactlyEachLevelsSum) { check_level_sums_for<TypeParam>(Backend::cpu(), true); }
TYPED_TEST(FieldOps, BoxValuesComeAndGo) { check_box_values_for<TypeParam>(Backend::cpu(), {9, 7, 6}); }
