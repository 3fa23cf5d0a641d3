// Onset of convection, measured as paper 004 did (Validation section, Table II): run the
// case from a small perturbation at Rayleigh numbers around onset, measure the exponential
// growth or decay rate of the perturbation once the transient has passed, and find the
// Rayleigh number where the rate crosses zero by secant iteration; repeat at several
// resolutions and extrapolate to h -> 0 (Richardson). Nothing about a particular case is
// built in: the domain, the boundaries and the time of each run come from the case file.
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "config/case.hpp"

namespace bouss {

struct GrowthMeasurement {
  double rayleigh = 0;
  double rate = 0;          // sigma: KE ~ exp(2 sigma t), fitted over [fit_begin, fit_end]
  double fit_begin = 0, fit_end = 0;
  double rate_first_half = 0, rate_second_half = 0;  // the same fit on each half of the window
  long steps = 0;
  bool stopped_nonlinear = false;  // the perturbation grew out of the linear regime first

  // The most the halves may differ by, |first - second|: 2% of the rate plus 1e-5 / W over
  // a window of length W. Past the transient ln(KE)/2 is a straight line: in the free-slip
  // runs at 16x8x16 to t = 1 (W = 0.5) the halves differ by about 1e-6, 1e-4 of a rate of
  // 1e-2 and 5e-7 / W for a rate near zero. A run cut short while the transient still decays
  // bends the line, and its halves differ by 10% and more (the same runs to t = 0.3: by 40%
  // and 80%), a bias of that order in the rate. 2% sits between the two; the floor, 20 times
  // the settled runs' difference, keeps a rate near zero, where onset is, from being judged
  // against a vanishing relative tolerance.
  double halves_tolerance() const;
  bool halves_agree() const { return std::fabs(rate_first_half - rate_second_half) <= halves_tolerance(); }
};

// Runs `c` (at the Rayleigh number it holds) to time.end, the kinetic energy recorded
// every step, and fits ln(KE)/2 against t over the second half of the run (the first half
// is the transient). A run whose energy grows by 1e12 stops there and fits its own second half.
// on_progress(measurement so far, t, steps) is called about every progress_seconds of wall
// time, for a progress line in long runs (rayleigh and steps of the measurement are set).
using GrowthProgress = std::function<void(const GrowthMeasurement&, double t)>;
GrowthMeasurement measure_growth_rate(const Case& c, const Backend& backend, const GrowthProgress& on_progress = {},
                                      double progress_seconds = 30);

// The case text at another resolution and Rayleigh number, validated again; with no output
// file and no checkpoints (these runs write nothing).
Case case_at(const std::string& text, const std::string& source, const std::array<int, 3>& n,
             std::optional<double> rayleigh, const std::vector<std::string>& overrides = {});

// The case's grid scaled so that nz = R, keeping nx : ny : nz (paper 004's 16x8x16 ... 128x64x128);
// an axis of one cell (a periodic axis of a two-dimensional case) stays one cell. Throws
// CaseError when a ratio does not give whole cell counts, or nz itself is one cell.
std::array<int, 3> scaled_grid(const Case& c, int R);

struct OnsetResult {
  std::array<int, 3> n{};
  double rac = 0;
  std::vector<GrowthMeasurement> runs;  // every growth-rate run, in order
};

// Secant iteration for sigma(Ra) = 0 from the bracket (Ra1, Ra2), until the Rayleigh
// number moves by less than rel_tol of itself.
OnsetResult critical_rayleigh(const std::string& text, const std::string& source, const std::array<int, 3>& n,
                              double ra1, double ra2, const Backend& backend, const std::vector<std::string>& overrides,
                              double rel_tol = 1e-7, int max_runs = 8,
                              const std::function<void(const GrowthMeasurement&)>& on_run = {},
                              const GrowthProgress& on_progress = {});

// Growth rates at the given Rayleigh numbers only (one run each); rac is where their
// least-squares line sigma(Ra) crosses zero (sigma is linear in Ra near onset).
OnsetResult growth_rates_at(const std::string& text, const std::string& source, const std::array<int, 3>& n,
                            const std::vector<double>& rayleigh, const Backend& backend,
                            const std::vector<std::string>& overrides,
                            const std::function<void(const GrowthMeasurement&)>& on_run = {},
                            const GrowthProgress& on_progress = {});

}  // namespace bouss
