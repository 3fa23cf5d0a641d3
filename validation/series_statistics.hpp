// Statistics of one diagnostics series (a Nusselt number, the kinetic energy, ...) of a run
// that may be unsteady: where its statistically steady part starts, its mean and standard
// deviation there, and how well the mean is known (`bouss stats`; docs/cli.md).
//
// The records are the samples (every output.diagnostics_interval_steps steps: with an
// adaptive dt they are evenly spaced in steps, not exactly in time; a developed flow's dt
// varies little).
//
// - The steady part's start: MSER-5 (White 1997; White, Cobb & Spratt 2000): the series in
//   batches of 5 records, the truncation d (in batches, within the first half) that minimizes
//   the marginal standard error sum_{j >= d} (B_j - mean_d)^2 / (nb - d)^2. A minimum at the
//   end of that search (the series still moving through its first half) finds no steady part.
// - The standard error of the mean: from the integral time tau = 1 + 2 sum_k rho_k (in
//   records) with Sokal's automatic window (the smallest M with M >= 6 tau(M)); the effective
//   number of independent samples n_eff = n / tau, sem = std / sqrt(n_eff).
// - Steady also needs the steady part's two halves to agree: their means within 6 sem (three
//   standard deviations of their difference, 2 sem, for a stationary series), at least 10
//   independent samples, and a window found within a quarter of the part.
// Without a steady part the statistics are of the whole series, with steady = false and the
// reason.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace bouss {

struct SeriesStatistics {
  bool steady = false;
  std::size_t start = 0;      // the first record of the part the statistics are of
  double start_time = NAN;    // its time
  std::size_t samples = 0;    // records in that part
  double mean = NAN, std = NAN, sem = NAN;
  double tau = NAN;           // the integral time, in records
  double n_eff = NAN;         // samples / tau
  std::string reason;         // why not steady ("" when steady)
};

constexpr int mser_batch = 5;
constexpr double sokal_window = 6;
constexpr double min_independent_samples = 10;

// t and x of equal length. Records before the first finite x are left out (a growth rate's
// first); a non-finite x after it gives NaN statistics, not steady.
SeriesStatistics series_statistics(const std::vector<double>& t, const std::vector<double>& x);

// The pieces, for the tests: the MSER-5 truncation (in records); the mean, standard
// deviation, integral time and its window over x[from, end).
std::size_t mser5_start(const std::vector<double>& x, bool* at_search_end = nullptr);
struct Moments {
  double mean = NAN, std = NAN, tau = NAN;
  std::size_t window = 0;
  bool window_found = false;
};
Moments moments(const std::vector<double>& x, std::size_t from, std::size_t to);

}  // namespace bouss
