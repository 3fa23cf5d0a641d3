#include "validation/convergence.hpp"

#include <cmath>

namespace bouss {

namespace {

// ln of the right side of e21 / e32 = (r21^p - 1) / (1 - r32^-p); its limit at p = 0 is
// ln(ln r21 / ln r32). Increasing in p for r21, r32 > 1.
double log_difference_ratio(double p, double r21, double r32) {
  if (std::fabs(p) < 1e-9) return std::log(std::log(r21) / std::log(r32));
  return std::log(std::expm1(p * std::log(r21)) / -std::expm1(-p * std::log(r32)));
}

}  // namespace

double observed_order(double e21, double e32, double r21, double r32) {
  const double q = e21 / e32;
  if (!(q > 0) || !std::isfinite(q) || !(r21 > 1) || !(r32 > 1)) return NAN;
  if (r21 == r32) return std::log(q) / std::log(r21);
  // Bisection on the monotone relation; orders beyond +-30 are no orders.
  const double target = std::log(q);
  double lo = -30, hi = 30;
  if (target < log_difference_ratio(lo, r21, r32) || target > log_difference_ratio(hi, r21, r32)) return NAN;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = 0.5 * (lo + hi);
    (log_difference_ratio(mid, r21, r32) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double richardson_extrapolation(double coarse, double fine, double r, double order) {
  return fine + (fine - coarse) / (std::pow(r, order) - 1);
}

double predicted_value(int r1, double f1, int r2, double f2, int next, double order) {
  const double h1 = std::pow(1.0 / r1, order), h2 = std::pow(1.0 / r2, order), hn = std::pow(1.0 / next, order);
  return f2 + (f2 - f1) * (hn - h2) / (h2 - h1);
}

ConvergenceTable convergence_table(const std::vector<int>& resolutions, const std::vector<double>& values) {
  ConvergenceTable t;
  t.resolutions = resolutions;
  t.values = values;
  const std::size_t n = values.size();
  t.differences.assign(n, NAN);
  t.orders.assign(n, NAN);
  auto ratio = [&](std::size_t i) { return double(resolutions[i]) / double(resolutions[i - 1]); };
  for (std::size_t i = 1; i < n; ++i) t.differences[i] = values[i] - values[i - 1];
  for (std::size_t i = 2; i < n; ++i)
    t.orders[i] = observed_order(t.differences[i - 1], t.differences[i], ratio(i - 1), ratio(i));
  t.extrapolated = NAN;
  t.extrapolation_ratio = NAN;
  if (n >= 2) {
    t.extrapolation_ratio = ratio(n - 1);
    t.extrapolated = richardson_extrapolation(values[n - 2], values[n - 1], t.extrapolation_ratio, scheme_order);
  }
  t.observed_order = n >= 3 ? t.orders[n - 1] : NAN;
  return t;
}

}  // namespace bouss
