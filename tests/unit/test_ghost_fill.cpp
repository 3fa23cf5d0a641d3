#include "ghost_checks.hpp"

using namespace bouss;
using namespace bouss::test;

TEST(GhostFill, PeriodicWrapsEveryStaggeringOnEveryAxis) {
  check_ghost_fill(Backend::cpu(), BoundaryKind::periodic, 1);
  check_ghost_fill(Backend::cpu(), BoundaryKind::periodic, 2);
}
TEST(GhostFill, ValueConditionReproducesLinearFieldThroughTheWall) {
  check_ghost_fill(Backend::cpu(), BoundaryKind::value, 1);
  check_ghost_fill(Backend::cpu(), BoundaryKind::value, 2);
}
TEST(GhostFill, GradientConditionReproducesLinearFieldThroughTheWall) {
  check_ghost_fill(Backend::cpu(), BoundaryKind::gradient, 1);
  check_ghost_fill(Backend::cpu(), BoundaryKind::gradient, 2);
}
TEST(GhostFill, ValueConditionFixesBoundaryFacesAndUnknownBoxSkipsThem) {
  check_value_condition_sets_boundary_faces(Backend::cpu());
}
TEST(GhostFill, ConductingSideWallsHoldTheConductionProfile) { check_conducting_walls(Backend::cpu()); }
TEST(GhostFill, FillingFieldsTogetherEqualsFillingEachAlone) {
  check_fill_together(Backend::cpu(), 1);
  check_fill_together(Backend::cpu(), 2);
}
