#include "ghost_checks.hpp"

using namespace bouss;
using namespace bouss::test;

// Every ghost fill in both precisions: GhostFill.*<double> and GhostFill.*<float>.
template <class R>
class GhostFill : public ::testing::Test {};
TYPED_TEST_SUITE(GhostFill, Precisions);

TYPED_TEST(GhostFill, PeriodicWrapsEveryStaggeringOnEveryAxis) {
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::periodic, 1);
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::periodic, 2);
}
TYPED_TEST(GhostFill, ValueConditionReproducesLinearFieldThroughTheWall) {
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::value, 1);
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::value, 2);
}
TYPED_TEST(GhostFill, GradientConditionReproducesLinearFieldThroughTheWall) {
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::gradient, 1);
  check_ghost_fill<TypeParam>(Backend::cpu(), BoundaryKind::gradient, 2);
}
TYPED_TEST(GhostFill, ZeroGradientMirrorsTheInteriorExactly) {
  check_zero_gradient_mirrors_exactly<TypeParam>(Backend::cpu(), 1);
  check_zero_gradient_mirrors_exactly<TypeParam>(Backend::cpu(), 2);
}
TYPED_TEST(GhostFill, ValueConditionFixesBoundaryFacesAndUnknownBoxSkipsThem) {
  check_value_condition_sets_boundary_faces<TypeParam>(Backend::cpu());
}
TYPED_TEST(GhostFill, ConductingSideWallsHoldTheConductionProfile) { check_conducting_walls<TypeParam>(Backend::cpu()); }
TYPED_TEST(GhostFill, FillingFieldsTogetherEqualsFillingEachAlone) {
  check_fill_together<TypeParam>(Backend::cpu(), 1);
  check_fill_together<TypeParam>(Backend::cpu(), 2);
}
