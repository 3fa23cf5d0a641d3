// Statistics of a diagnostics series: see validation/series_statistics.hpp.
#include "validation/series_statistics.hpp"

#include <algorithm>
#include <limits>

namespace bouss {

std::size_t mser5_start(const std::vector<double>& x, bool* at_search_end) {
  const std::size_t nb = x.size() / mser_batch;
  if (at_search_end) *at_search_end = false;
  if (nb < 4) return 0;
  std::vector<double> batch(nb);
  for (std::size_t b = 0; b < nb; ++b) {
    double sum = 0;
    for (int q = 0; q < mser_batch; ++q) sum += x[b * mser_batch + q];
    batch[b] = sum / mser_batch;
  }
  // Suffix sums give each truncation's mean and squared deviations in one pass.
  std::vector<double> s1(nb + 1, 0.0), s2(nb + 1, 0.0);
  for (std::size_t b = nb; b-- > 0;) {
    s1[b] = s1[b + 1] + batch[b];
    s2[b] = s2[b + 1] + batch[b] * batch[b];
  }
  const std::size_t last = nb / 2;
  std::size_t best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d <= last; ++d) {
    const double m = double(nb - d), mean = s1[d] / m;
    const double ss = std::max(0.0, s2[d] - m * mean * mean);
    const double value = ss / (m * m);
    if (value < best_value) {
      best_value = value;
      best = d;
    }
  }
  if (at_search_end) *at_search_end = best == last && best > 0;
  return best * mser_batch;
}

Moments moments(const std::vector<double>& x, std::size_t from, std::size_t to) {
  Moments r;
  const std::size_t n = to - from;
  if (n < 2) return r;
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += x[i];
  r.mean = sum / double(n);
  double c0 = 0;
  for (std::size_t i = from; i < to; ++i) c0 += (x[i] - r.mean) * (x[i] - r.mean);
  r.std = std::sqrt(c0 / double(n - 1));
  if (c0 == 0) {  // constant: every sample independent of nothing, tau = 1
    r.tau = 1;
    r.window_found = true;
    return r;
  }
  // Sokal's window: tau(M) = 1 + 2 sum_{k=1}^{M} rho_k, the smallest M >= 6 tau(M); searched
  // up to a quarter of the samples.
  double tau = 1;
  const std::size_t max_lag = n / 4;
  for (std::size_t k = 1; k <= max_lag; ++k) {
    double ck = 0;
    for (std::size_t i = from; i + k < to; ++i) ck += (x[i] - r.mean) * (x[i + k] - r.mean);
    tau += 2 * ck / c0;
    if (double(k) >= sokal_window * tau) {
      r.window = k;
      r.window_found = true;
      break;
    }
  }
  r.tau = std::max(tau, 1.0 / double(n));
  if (!r.window_found) r.window = max_lag;
  return r;
}

SeriesStatistics series_statistics(const std::vector<double>& t_all, const std::vector<double>& x_all) {
  SeriesStatistics s;
  // Records before the first finite one are left out (a growth rate has none at t = 0).
  std::size_t first = 0;
  while (first < x_all.size() && !std::isfinite(x_all[first])) ++first;
  const std::vector<double> x(x_all.begin() + std::ptrdiff_t(first), x_all.end());
  const std::vector<double> t(t_all.begin() + std::ptrdiff_t(std::min(first, t_all.size())), t_all.end());
  const std::size_t n = x.size();
  if (n < 2 || t.size() != n) {
    s.reason = "fewer than 2 finite records";
    s.samples = n;
    return s;
  }
  for (double v : x)
    if (!std::isfinite(v)) {
      s.reason = "a record after the first finite one is not finite";
      s.samples = n;
      return s;
    }
  const auto fill = [&](std::size_t from) {
    const Moments m = moments(x, from, n);
    s.start = first + from;
    s.start_time = t[from];
    s.samples = n - from;
    s.mean = m.mean;
    s.std = m.std;
    s.tau = m.tau;
    s.n_eff = double(s.samples) / m.tau;
    s.sem = m.std / std::sqrt(s.n_eff);
    return m;
  };
  bool at_end = false;
  const std::size_t start = mser5_start(x, &at_end);
  if (at_end) {
    fill(0);
    s.reason = "it moves through its whole first half (no steady part)";
    return s;
  }
  const Moments m = fill(start);
  if (!m.window_found) {
    s.reason = "its correlation time is too long for its length (no window within a quarter of it)";
    return s;
  }
  if (s.n_eff < min_independent_samples) {
    s.reason = "fewer than 10 independent samples in its steady part";
    return s;
  }
  // The steady part's halves agree within three standard deviations of their difference.
  const std::size_t half = start + s.samples / 2;
  const Moments a = moments(x, start, half), b = moments(x, half, n);
  if (std::fabs(a.mean - b.mean) > 6 * s.sem) {
    s.reason = "its steady part's halves differ by more than 6 standard errors (a drift)";
    return s;
  }
  s.steady = true;
  return s;
}

}  // namespace bouss
