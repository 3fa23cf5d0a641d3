// The front-speed fit of `bouss front` (validation/front.hpp) on synthetic tracks: its window
// over the constant-speed phase, its halves, and the cases with no fit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "validation/front.hpp"

using namespace bouss;

namespace {

// A track sampled every 1/8: accelerating as t^2 / 2 up to t = 2 (travelled 2), then at speed 2.
void accelerating_then_constant(std::vector<double>& t, std::vector<double>& x, double end) {
  for (int i = 0; i * 0.125 <= end; ++i) {
    const double s = i * 0.125;
    t.push_back(s);
    x.push_back(s <= 2 ? 0.5 * s * s : 2 + 2 * (s - 2));
  }
}

}  // namespace

// The window opens at the first sample that has travelled `start` (3: t = 2.5) and closes at
// the last before the first past `stop` (15: t = 8.5); over it the speed is constant, so the
// speed and both halves are 2 and the samples lie on the line.
TEST(FrontSpeedFit, WindowFromStartToStopOverTheConstantSpeedPhase) {
  std::vector<double> t, x;
  accelerating_then_constant(t, x, 10);
  const FrontSpeedFit f = fit_front_speed(t, x, 3, 15);
  ASSERT_TRUE(f.fitted()) << f.problem;
  EXPECT_EQ(f.begin, 2.5);
  EXPECT_EQ(f.end, 8.5);
  EXPECT_EQ(f.samples, 49);
  EXPECT_NEAR(f.speed, 2, 1e-12);
  EXPECT_NEAR(f.first_half, 2, 1e-12);
  EXPECT_NEAR(f.second_half, 2, 1e-12);
  EXPECT_LT(f.rms, 1e-12);
  EXPECT_TRUE(f.halves_agree());
  // A run that ends before the front reaches `stop`: the window runs to the last sample.
  const FrontSpeedFit g = fit_front_speed(t, x, 3, 100);
  EXPECT_EQ(g.end, 10.0);
  EXPECT_NEAR(g.speed, 2, 1e-12);
}

// A window that holds the acceleration: its halves differ (here by the acceleration times
// half the window) and the fit says so; the speed is the mean slope.
TEST(FrontSpeedFit, HalvesOfAnAcceleratingFrontDisagree) {
  std::vector<double> t, x;
  accelerating_then_constant(t, x, 10);
  const FrontSpeedFit f = fit_front_speed(t, x, 0.5, 15);
  ASSERT_TRUE(f.fitted()) << f.problem;
  EXPECT_EQ(f.begin, 1.0);
  EXPECT_LT(f.first_half, f.second_half);
  EXPECT_FALSE(f.halves_agree());
  EXPECT_GT(f.rms, 0.01);
}

// No fit from too few samples, or from a front that never travelled `start`: a reason, no speed.
TEST(FrontSpeedFit, TooFewSamplesOrAFrontThatNeverArrivesGiveNoSpeed) {
  std::vector<double> t, x;
  accelerating_then_constant(t, x, 3);  // travels 4 by t = 3
  const FrontSpeedFit short_run = fit_front_speed(t, x, 3, 15);
  EXPECT_FALSE(short_run.fitted());
  EXPECT_TRUE(std::isnan(short_run.speed));
  EXPECT_NE(short_run.problem.find("samples"), std::string::npos) << short_run.problem;
  EXPECT_FALSE(short_run.halves_agree());
  const FrontSpeedFit never = fit_front_speed(t, x, 5, 15);
  EXPECT_FALSE(never.fitted());
  EXPECT_NE(never.problem.find("never travelled"), std::string::npos) << never.problem;
}
