// Checks of the time averages' arithmetic on any backend (physics/time_average.hpp): a field
// linear in time averages to its midpoint exactly with a varying dt; a constant to itself (to
// round-off) whatever the sampling; the covariance of two fields is the trapezoidal rule's, computed on
// the host independently; sampled every N steps of a fixed dt, the coarse trapezoid, also when
// the window ends fewer than N steps after its last sample; of a varying dt, the documented
// weights (half the time back, half of N steps of the sample's dt ahead, cut at the end).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "grid/field_ops.hpp"
#include "physics/time_average.hpp"
#include "test_support.hpp"

namespace bouss::test {

// Two fields whose values at point p and time t are a(p, t) = a0(p) + a1(p) t and
// b(p, t) = cos(p + t); sampled at t_0 .. t_R (dt drawn at random, or fixed) as a run
// samples them: at each step's start, every `every` steps, and closed at t_R.
template <class S>
void check_time_averages_for(const Backend& be, int every, bool fixed_dt) {
  const Grid g = Grid::make({5, 4, 3}, {0, 0, 0}, {1, 1, 1});
  const Layout L = Layout::make(g.layout.n, g.layout.ghost, sizeof(S));
  const Box box = L.interior(Stagger::centre);
  const std::size_t n = std::size_t(box.cells());
  Field<S> a(be, L, Stagger::centre, "a"), b(be, L, Stagger::centre, "b"), c0(be, L, Stagger::centre, "c");
  {  // c: constant in time, 3 - p / 7 at point p
    std::vector<S> hc(L.size, S(0));
    std::size_t p = 0;
    for (int k = 0; k < L.n[2]; ++k)
      for (int j = 0; j < L.n[1]; ++j)
        for (int i = 0; i < L.n[0]; ++i, ++p) hc[L.origin + L.index(i, j, k)] = S(3 - double(p) / 7);
    c0.from_host(hc);
  }
  auto set = [&](double t) {
    std::vector<S> ha(L.size, S(0)), hb(L.size, S(0));
    std::size_t p = 0;
    for (int k = 0; k < L.n[2]; ++k)
      for (int j = 0; j < L.n[1]; ++j)
        for (int i = 0; i < L.n[0]; ++i, ++p) {
          ha[L.origin + L.index(i, j, k)] = S(0.25 * double(p) + (1.0 - 0.1 * double(p)) * t);
          hb[L.origin + L.index(i, j, k)] = S(std::cos(double(p) + t));
        }
    a.from_host(ha);
    b.from_host(hb);
  };
  auto value = [&](const Field<S>& f, std::size_t p, double t) {  // what set() stored, read as S
    return &f == &a ? double(S(0.25 * double(p) + (1.0 - 0.1 * double(p)) * t)) : double(S(std::cos(double(p) + t)));
  };
  double* sums = static_cast<double*>(be.allocate(4 * n * sizeof(double)));
  AveragingClock* clock = static_cast<AveragingClock*>(be.allocate(sizeof(AveragingClock)));
  StepClock* step = static_cast<StepClock*>(be.allocate(sizeof(StepClock)));
  clear_sums(be, sums, 4 * n);
  const SampledField<S> fa{&a, -1, {}}, fb{&b, -1, {}}, fc{&c0, -1, {}}, none{};
  auto sample = [&] {
    accumulate_sample(fa, none, box, &clock->weight, sums);
    accumulate_sample(fb, none, box, &clock->weight, sums + n);
    accumulate_sample(fa, fb, box, &clock->weight, sums + 2 * n);
    accumulate_sample(fc, none, box, &clock->weight, sums + 3 * n);
  };
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> draw(0.01, 0.05);
  const double t0 = 0.3;
  std::vector<double> times{t0};
  StepClock c;
  c.time = t0;
  // Sampled every N steps, the window ends one step after its last sample: the last half
  // ahead is that one step, not N.
  const int steps = 4 * every * 3 + (every > 1 ? 1 : 0);
  std::vector<double> weights;  // the documented weight of each sample, on the host
  for (int s = 0; s < steps; ++s) {
    c.start = c.time;
    c.dt = fixed_dt ? 0.02 : draw(rng);
    c.time = c.start + c.dt;
    copy_bytes(step, be, &c, Backend::cpu(), sizeof c);
    if (s % every == 0) {
      set(c.start);
      SampleHorizon horizon;
      horizon.steps = std::min(every, steps - s);
      horizon.until = std::numeric_limits<double>::infinity();
      plan_sample_on(be, clock, step, s == 0, every, horizon);
      sample();
      const double back = s == 0 ? 0.0 : c.start - times[std::size_t(s - every)];
      weights.push_back(0.5 * (back + (every == 1 ? c.dt : horizon.steps * c.dt)));
    }
    times.push_back(c.time);
  }
  weights.push_back(0.5 * (times.back() - times[std::size_t((steps - 1) / every * every)]));
  set(c.time);
  plan_closing_sample_on(be, clock, step);
  sample();
  std::vector<double> mean_a(n), mean_b(n), cov(n);
  double* out = static_cast<double*>(be.allocate(4 * n * sizeof(double)));
  time_mean_into(be, sums, n, clock, out);
  time_mean_into(be, sums + n, n, clock, out + n);
  time_covariance_into(be, sums + 2 * n, sums, sums + n, n, clock, out + 2 * n);
  time_mean_into(be, sums + 3 * n, n, clock, out + 3 * n);
  std::vector<double> host(4 * n);
  copy_bytes(host.data(), Backend::cpu(), out, be, 4 * n * sizeof(double));
  AveragingClock done;
  copy_bytes(&done, Backend::cpu(), clock, be, sizeof done);
  const double T = times.back() - t0;
  if (every == 1 || fixed_dt) EXPECT_NEAR(done.total, T, 1e-14) << "the weights sum to the interval";
  // The trapezoid over the sample times, on the host.
  std::vector<double> at;
  for (int s = 0; s < steps; s += every) at.push_back(times[std::size_t(s)]);
  at.push_back(times.back());
  for (std::size_t p = 0; p < n; ++p) {
    double ia = 0, ib = 0, iab = 0;
    for (std::size_t q = 0; q + 1 < at.size(); ++q) {
      const double h = 0.5 * (at[q + 1] - at[q]);
      ia += h * (value(a, p, at[q]) + value(a, p, at[q + 1]));
      ib += h * (value(b, p, at[q]) + value(b, p, at[q + 1]));
      iab += h * (value(a, p, at[q]) * value(b, p, at[q]) + value(a, p, at[q + 1]) * value(b, p, at[q + 1]));
    }
    const double constant = double(S(3 - double(p) / 7));
    ASSERT_NEAR(host[3 * n + p], constant, 2e-15 * std::fabs(constant)) << "a constant averages to itself, point " << p;
    const double scale = 1 + std::fabs(ia / T);
    if (every == 1 || fixed_dt) {
      ASSERT_NEAR(host[p], ia / T, 1e-14 * scale) << "point " << p;
      ASSERT_NEAR(host[n + p], ib / T, 1e-14) << "point " << p;
      ASSERT_NEAR(host[2 * n + p], iab / T - (ia / T) * (ib / T), 1e-13 * scale) << "point " << p;
      if (sizeof(S) == 8)  // linear in time: the trapezoid is exact, the midpoint's value
        ASSERT_NEAR(host[p], 0.25 * double(p) + (1.0 - 0.1 * double(p)) * 0.5 * (t0 + times.back()), 1e-13 * scale);
    } else {  // every N steps of a varying dt: the half ahead is estimated, by the documented weights
      double wa = 0, total = 0;
      for (std::size_t q = 0; q < at.size(); ++q) {
        wa += weights[q] * value(a, p, at[q]);
        total += weights[q];
      }
      ASSERT_NEAR(host[p], wa / total, 1e-13 * scale) << "point " << p;
      ASSERT_NEAR(done.total, total, 1e-14 * total);
    }
  }
  be.deallocate(sums);
  be.deallocate(out);
  be.deallocate(clock);
  be.deallocate(step);
}

inline void check_time_averages(const Backend& be) {
  for (int every : {1, 3})
    for (bool fixed : {false, true}) {
      SCOPED_TRACE("every " + std::to_string(every) + (fixed ? " steps, fixed dt" : " steps, varying dt"));
      check_time_averages_for<double>(be, every, fixed);
      check_time_averages_for<float>(be, every, fixed);
    }
}

}  // namespace bouss::test
