// The statistics of `bouss stats` (validation/series_statistics.hpp) on synthetic series whose
// answers are known: AR(1) processes (mean, integral time and standard error of the mean in
// closed form), transients, drifts, constants.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "validation/series_statistics.hpp"

using namespace bouss;

namespace {

// x_i = mu + y_i, y_i = phi y_{i-1} + e_i, e ~ N(0, 1), started from the stationary law: the
// variance is 1 / (1 - phi^2), the integral time (1 + phi) / (1 - phi) records.
std::vector<double> ar1(std::size_t n, double phi, double mu, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> e(0, 1);
  std::vector<double> x(n);
  double y = e(rng) / std::sqrt(1 - phi * phi);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = mu + y;
    y = phi * y + e(rng);
  }
  return x;
}

std::vector<double> times(std::size_t n) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = 0.1 * double(i);
  return t;
}

}  // namespace

// Five AR(1) series of 40000 records with phi = 0.9 (integral time 19): each is steady from
// (near) its start, its mean within 4 standard errors of mu, its estimated standard error
// and n_eff within 25% of the closed form's (Sokal's window estimates tau to about 10% here).
TEST(SeriesStatistics, RecoversTheMeanAndStandardErrorOfAnAr1Process) {
  const double phi = 0.9, mu = 3, tau = (1 + phi) / (1 - phi);
  const std::size_t n = 40000;
  const double sigma = 1 / std::sqrt(1 - phi * phi), sem = sigma * std::sqrt(tau / double(n));
  for (unsigned seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<double> x = ar1(n, phi, mu, seed);
    const SeriesStatistics s = series_statistics(times(n), x);
    EXPECT_TRUE(s.steady) << s.reason;
    EXPECT_LT(s.start, n / 10);
    EXPECT_NEAR(s.mean, mu, 4 * sem);
    EXPECT_NEAR(s.std, sigma, 0.05 * sigma);
    EXPECT_NEAR(s.sem, sem, 0.25 * sem);
    EXPECT_NEAR(s.n_eff, double(s.samples) / tau, 0.25 * double(s.samples) / tau);
    EXPECT_DOUBLE_EQ(s.start_time, 0.1 * double(s.start));
  }
}

// Independent samples (phi = 0): tau near 1, sem near sigma / sqrt(n).
TEST(SeriesStatistics, IndependentSamplesHaveAnIntegralTimeOfOne) {
  const std::size_t n = 20000;
  const SeriesStatistics s = series_statistics(times(n), ar1(n, 0.0, -2, 7));
  EXPECT_TRUE(s.steady) << s.reason;
  EXPECT_NEAR(s.tau, 1.0, 0.15);
  EXPECT_NEAR(s.sem, 1 / std::sqrt(double(s.samples)), 0.1 / std::sqrt(double(s.samples)));
}

// A decay of 20 over 100 records into AR(1) noise (standard deviation 1.7): the steady part
// starts after the decay's first e-folds and well before the end, where what is left of the
// transient biases the mean by less than its standard error (MSER's criterion; measured:
// from record 240, a bias of 0.009 against a standard error of 0.035).
TEST(SeriesStatistics, TheSteadyPartStartsAfterTheTransient) {
  const std::size_t n = 20000;
  std::vector<double> x = ar1(n, 0.8, 1.0, 11);
  for (std::size_t i = 0; i < n; ++i) x[i] += 20 * std::exp(-double(i) / 100);
  const SeriesStatistics s = series_statistics(times(n), x);
  EXPECT_TRUE(s.steady) << s.reason;
  EXPECT_GE(s.start, 100u);
  EXPECT_LE(s.start, 2000u);
  double bias = 0;
  for (std::size_t i = s.start; i < n; ++i) bias += 20 * std::exp(-double(i) / 100);
  bias /= double(s.samples);
  EXPECT_LT(bias, s.sem);
  EXPECT_NEAR(s.mean, 1.0, 5 * s.sem);
}

// A transient through the whole record (a decay over a third of it, or a slow ramp): no
// steady part; the whole series' statistics with the flag and the reason.
TEST(SeriesStatistics, ATransientOnlySeriesIsNotSteady) {
  const std::size_t n = 6000;
  std::vector<double> decay = ar1(n, 0.5, 0.0, 3), ramp = ar1(n, 0.5, 0.0, 4);
  for (std::size_t i = 0; i < n; ++i) {
    decay[i] = 0.1 * decay[i] + std::exp(-3.0 * double(i) / double(n));
    ramp[i] = 0.1 * ramp[i] + double(i) / double(n);
  }
  for (const auto* x : {&decay, &ramp}) {
    const SeriesStatistics s = series_statistics(times(n), *x);
    EXPECT_FALSE(s.steady);
    EXPECT_FALSE(s.reason.empty());
    EXPECT_TRUE(std::isfinite(s.mean) && std::isfinite(s.sem));
  }
  const SeriesStatistics s = series_statistics(times(n), ramp);
  EXPECT_EQ(s.start, 0u) << "not steady: the whole series";
  EXPECT_EQ(s.samples, n);
}

// A level that steps up by 0.5 two thirds of the way through (the noise's standard deviation
// 1.15, the mean's standard error about 0.015): MSER finds the first half flat, and the
// steady part's halves then differ: a drift, not steady.
TEST(SeriesStatistics, AStepInTheSecondHalfIsADrift) {
  const std::size_t n = 20000;
  std::vector<double> x = ar1(n, 0.5, 0.0, 21);
  for (std::size_t i = 2 * n / 3; i < n; ++i) x[i] += 0.5;
  const SeriesStatistics s = series_statistics(times(n), x);
  EXPECT_FALSE(s.steady);
  EXPECT_NE(s.reason.find("drift"), std::string::npos) << s.reason;
}

// A steady laminar run: a constant series is steady with no spread; leading non-finite
// records are left out, a later one gives no statistics.
TEST(SeriesStatistics, ConstantAndNonFiniteSeries) {
  const std::size_t n = 200;
  const SeriesStatistics c = series_statistics(times(n), std::vector<double>(n, 5.25));
  EXPECT_TRUE(c.steady) << c.reason;
  EXPECT_EQ(c.mean, 5.25);
  EXPECT_EQ(c.std, 0.0);
  EXPECT_EQ(c.sem, 0.0);
  std::vector<double> x(n, 1.0);
  x[0] = NAN;  // as a growth rate's first record: left out
  const SeriesStatistics lead = series_statistics(times(n), x);
  EXPECT_TRUE(lead.steady) << lead.reason;
  EXPECT_EQ(lead.samples, n - 1);
  EXPECT_EQ(lead.mean, 1.0);
  x[17] = NAN;
  const SeriesStatistics bad = series_statistics(times(n), x);
  EXPECT_FALSE(bad.steady);
  EXPECT_TRUE(std::isnan(bad.mean));
}
