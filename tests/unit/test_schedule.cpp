// The run's schedules (snapshots, checkpoints) and its diagnostics series, on their own.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "run/diagnostics_series.hpp"
#include "run/schedule.hpp"

using namespace bouss;

TEST(Schedule, ByStepsIsDueAtEveryMultipleOfTheInterval) {
  Schedule s(std::nullopt, 4);
  std::vector<long> due;
  for (long step = 1; step <= 13; ++step)
    if (s.due(0.1 * step, step)) due.push_back(step);
  EXPECT_EQ(due, (std::vector<long>{4, 8, 12}));
}

TEST(Schedule, ByTimeIsDueAtTheFirstStepThatReachesEachMultiple) {
  // dt = 0.3 against an interval of 1: due at t = 1.2, 2.1, 3.0, 4.2, ...; never twice for
  // one multiple, and a step that lands within rounding of a multiple counts as reaching it.
  Schedule s(1.0, std::nullopt);
  std::vector<long> due;
  double t = 0;
  for (long step = 1; step <= 20; ++step) {
    t += 0.3;
    if (s.due(t, step)) due.push_back(step);
  }
  EXPECT_EQ(due, (std::vector<long>{4, 7, 10, 14, 17, 20}));
  // A step that jumps over several multiples is due once and moves past all of them.
  Schedule jump(1.0, std::nullopt);
  EXPECT_TRUE(jump.due(3.5, 1));
  EXPECT_EQ(jump.next_time(), 4.0);
  EXPECT_FALSE(jump.due(3.9, 2));
}

TEST(Schedule, BothIntervalsTogetherAndNeither) {
  Schedule both(1.0, 3);
  std::vector<long> due;
  for (long step = 1; step <= 6; ++step)
    if (both.due(0.4 * step, step)) due.push_back(step);
  EXPECT_EQ(due, (std::vector<long>{3, 5, 6}));  // steps 3 and 6; t = 1.2 at step 3, 2.0 at step 5
  Schedule none;
  EXPECT_FALSE(none.active());
  for (long step = 1; step <= 10; ++step) EXPECT_FALSE(none.due(step, step));
}

// A schedule made at a restart time continues with the same next due time, to the bit, as
// the one that ran up to that time (the restart's output lands where the uninterrupted run's does).
// The due times are multiples of the interval as its decimals read: the 3rd of 0.1 is the
// double nearest 0.3, where a sum of intervals (or 3 * 0.1) is 0.30000000000000004, and the
// 1000th is 100, where a sum has drifted by 1.4e-12.
TEST(Schedule, DueTimesAreTheMultiplesAsTheirDecimalsRead) {
  Schedule s(0.1, std::nullopt);
  for (long k = 1; k <= 1000; ++k) {
    ASSERT_EQ(s.next_time(), std::stod(std::to_string(k) + "e-1")) << "multiple " << k;
    ASSERT_TRUE(s.due(s.next_time(), k));
  }
  EXPECT_FALSE(Schedule(std::nullopt, 3).next_time() < 1e300) << "no interval: never due by time";
  Schedule restored(0.1, std::nullopt);
  restored.set_next_time(0.30000000000000004);  // a checkpoint's, written by the sums of an older bouss
  EXPECT_EQ(restored.next_time(), 0.3);
}

TEST(Schedule, MadeAtARestartTimeMatchesTheOneThatRan) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dt(0.01, 0.7);
  Schedule running(0.37, std::nullopt);
  double t = 0;
  for (long step = 1; step <= 400; ++step) {
    t += dt(rng);
    running.due(t, step);
    const Schedule restarted(0.37, std::nullopt, t);
    ASSERT_EQ(restarted.next_time(), running.next_time()) << "step " << step << " t " << t;
  }
}

TEST(DiagnosticsSeries, GrowthRateIsHalfTheLogRateOfTheKineticEnergy) {
  DiagnosticsSeries s;
  Diagnostics d;
  d.kinetic_energy = 1e-6;
  auto first = s.record(0.0, d, 0.1, 2, false);
  EXPECT_TRUE(std::isnan(first.at("growth_rate"))) << "no earlier record";
  EXPECT_EQ(first.count("nusselt_bottom"), 0u) << "Nusselt numbers only between fixed-temperature plates";
  d.kinetic_energy = 1e-6 * std::exp(2 * 0.75 * 2.0);  // KE ~ exp(2 sigma t), sigma = 0.75
  auto second = s.record(2.0, d, 0.1, 3, true);
  EXPECT_NEAR(second.at("growth_rate"), 0.75, 1e-12);
  EXPECT_EQ(second.at("pressure_cycles"), 3);
  EXPECT_EQ(second.count("nusselt_volume"), 1u);
}

TEST(DiagnosticsSeries, RestoredStateContinuesBitForBit) {
  DiagnosticsSeries a;
  Diagnostics d;
  d.kinetic_energy = 3.25e-4;
  d.nusselt = {1.5, 1.25, 1.375, 1.4375, 1.40625};
  a.record(1.7, d, 0.01, 2, true);
  DiagnosticsSeries b;
  b.restore(a.state());
  EXPECT_EQ(b.latest().nusselt.top, 1.25);
  EXPECT_EQ(b.latest().nusselt.thermal_dissipation, 1.40625);
  d.kinetic_energy = 4.0e-4;
  const auto ra = a.record(1.9, d, 0.01, 2, true), rb = b.record(1.9, d, 0.01, 2, true);
  EXPECT_EQ(ra, rb);
  EXPECT_EQ(a.growth_rate(), b.growth_rate());
  // A checkpoint written before the dissipation estimates: they restore as NaN, the rest as written.
  auto old = a.state();
  old.erase("series_nusselt_kinetic_dissipation");
  old.erase("series_nusselt_thermal_dissipation");
  DiagnosticsSeries c;
  c.restore(old);
  EXPECT_EQ(c.latest().nusselt.volume, 1.375);
  EXPECT_TRUE(std::isnan(c.latest().nusselt.kinetic_dissipation));
}
