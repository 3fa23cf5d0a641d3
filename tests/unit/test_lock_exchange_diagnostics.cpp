// The lock exchange's diagnostics on fields whose answers are known (physics/lock_exchange.hpp),
// in both precisions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lock_exchange_checks.hpp"
#include "grid/stretching.hpp"
#include "physics/lock_exchange_kernels.hpp"

using namespace bouss;
using namespace bouss::test;

template <class R>
class LockExchangeDiagnostics : public ::testing::Test {};
TYPED_TEST_SUITE(LockExchangeDiagnostics, Precisions);

TYPED_TEST(LockExchangeDiagnostics, FrontsOfAConstructedFieldAreItsCrossingsOfHalfTheContrast) {
  check_fronts_of_a_constructed_field<TypeParam>(Backend::cpu());
}
TYPED_TEST(LockExchangeDiagnostics, HeatPotentialEnergyAndExtremesOfAConstructedField) {
  check_temperature_integrals_of_a_constructed_field<TypeParam>(Backend::cpu());
}
TYPED_TEST(LockExchangeDiagnostics, DiffusiveConversionIsKappaBAreaTopMinusBottomBetweenInsulatingWalls) {
  check_conversion_is_kappa_b_area_top_minus_bottom<TypeParam>(Backend::cpu());
}
TYPED_TEST(LockExchangeDiagnostics, UniformStreamDissipatesOnlyAtNoSlipPlates) {
  check_dissipation_of_a_uniform_stream<TypeParam>(Backend::cpu());
}

// Which fluid is dense follows the sign of the buoyancy (b_T theta along +z): the colder with
// b_T > 0, the warmer with b_T < 0; the floor's current starts on the dense side.
TEST(LockExchangeDiagnostics, TheDenseFluidIsTheColderForPositiveBuoyancy) {
  Case c = lock_box_case({8, 1, 4}, 3.0);
  c.initial.left = 2;
  c.initial.right = -1;
  Lock lock = lock_of(c);
  EXPECT_EQ(lock.dense, -1.0);
  EXPECT_EQ(lock.light, 2.0);
  EXPECT_EQ(lock.dense_direction, -1) << "the dense fluid starts right of the lock and runs toward -x";
  EXPECT_EQ(lock.contrast(), 3.0);
  EXPECT_EQ(lock.position, 3.0);
  c.physics.buoyancy = -1;
  lock = lock_of(c);
  EXPECT_EQ(lock.dense, 2.0);
  EXPECT_EQ(lock.dense_direction, 1);
  EXPECT_THROW(lock_of(c, 1.0), std::invalid_argument);
  EXPECT_THROW(lock_of(c, 0.0), std::invalid_argument);
  c.initial.profile = TemperatureProfile::uniform;
  EXPECT_FALSE(is_lock_exchange(c));
  EXPECT_THROW(lock_of(c), std::invalid_argument);
}

// One cell's view of a row: not reached, reached with the next cell not (interpolated),
// reached with the next reached too or the wall next (its own centre); both directions.
TEST(LockExchangeDiagnostics, FrontCrossingOfOneCell) {
  FrontRow row;
  row.ahead = 1;
  row.threshold = 1;
  row.direction = 1;
  row.x0 = 0.5;
  row.h = 1;
  row.n = 10;
  const double none = -INFINITY;
  EXPECT_EQ(front_crossing(row, 3, 0.5, 1.0, none), none) << "|T - ahead| = 0.5 is not past 1";
  EXPECT_EQ(front_crossing(row, 3, -1.0, 1.0, none), 4.0) << "halfway between 3.5 (2) and 4.5 (0)";
  EXPECT_EQ(front_crossing(row, 3, -1.0, -1.0, none), 3.5) << "the next cell answers for itself";
  EXPECT_EQ(front_crossing(row, 9, -1.0, 1.0, none), 9.5) << "the last cell before the wall";
  EXPECT_EQ(front_crossing(row, 3, NAN, 1.0, none), none);
  row.direction = -1;
  EXPECT_EQ(front_crossing(row, 3, -1.0, 1.0, none), -3.0) << "toward -x: between 3.5 and 2.5, signed";
  EXPECT_EQ(front_crossing(row, 0, -1.0, 1.0, none), -0.5) << "the first cell before the wall";
}

// On a stretched x: a T linear in x crosses the interface's temperature half-way along the
// channel, and the front interpolated between the cells' true centres finds it exactly; the
// heat content of T = x is its exact integral (the midpoint rule on a linear field).
TEST(LockExchangeDiagnostics, FrontsAndHeatOnAStretchedX) {
  Grid g = Grid::make({12, 2, 4}, {0, 0, 0}, {3.0, 0.5, 1.0});
  g.stretch(0, tanh_faces(12, 0.0, 3.0, 1.5, Cluster::low), false);
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  for (int q = 0; q < 4; ++q) fill(f[q], 0);
  Lock lock;
  lock.dense = -0.5;
  lock.light = 0.5;
  lock.position = 1.0;
  lock.dense_direction = 1;
  set_field(f.T, g, [](double x, double, double) { return -0.5 + x / 3.0; });
  const FrontPositions p = front_positions(g, f, ReferenceProfile{}, lock);
  EXPECT_NEAR(p.floor_x, 1.5, 1e-13);
  EXPECT_NEAR(p.lid_x, 1.5, 1e-13);
  EXPECT_NEAR(p.floor_travelled, 0.5, 1e-13);
  set_field(f.T, g, [](double x, double, double) { return x; });
  Coefficients c;
  const TemperatureIntegrals t = temperature_integrals(g, f, c);
  EXPECT_NEAR(t.heat, 3.0 * 3.0 / 2 * 0.5 * 1.0, 1e-13);
}
