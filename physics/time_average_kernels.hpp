// Time averages of an output stream over each record's interval (docs/output.md, "Averaged
// records"), pointwise, for both backends: the trapezoidal rule in time over the samples,
// each sample's weight half the time back to the previous sample and half the time on to the
// next, with one clock a stream (AveragingClock, in backend memory) that the one-thread
// planning kernels update and the accumulating kernels read, so that nothing waits for the
// host.
//
// A window [t_0, t_R] sampled at every step's start (the state the step starts from, whose
// next sample is the step's end, so both halves are known) and closed by the state at t_R:
//   sum_n (t_{n+1} - t_n) (f_n + f_{n+1}) / 2,  total weight t_R - t_0,
// exact for a field linear in time. Sampled every N steps, the half ahead is N times the
// step's dt (the next sample's time is not known yet), cut at the window's end when that
// comes sooner (a record fewer than N steps on: SampleHorizon): exact for a fixed dt; the
// mean divides by the sum of the weights, so a constant averages to itself whatever the steps.
#pragma once

#include <cmath>
#include <cstddef>

#include "grid/backend.hpp"
#include "physics/time_step.hpp"

namespace bouss {

struct AveragingClock {
  double last = 0;    // the time of the last sample
  double weight = 0;  // the weight of the sample being taken
  double total = 0;   // the sum of the weights since the window opened
};

// Where the window of a sample taken every N steps ends, as its stream's schedule knows it: a
// record `steps` steps on (at most N), and/or at time `until` (infinite: none), which the
// run's steps land on (`lands`) or the first step past it reaches.
struct SampleHorizon {
  int steps = 1;
  double until = 0;
  bool lands = true;
};

// The time a sample taken every N steps stands for ahead of it: N steps of this step's dt,
// cut at the window's end.
BOUSS_HD inline double span_ahead(const StepClock& c, const SampleHorizon& h) {
  double span = h.steps * c.dt;
  const double to_end = h.until - c.start;
  if (to_end < span) span = h.lands ? to_end : std::ceil(to_end / c.dt) * c.dt;
  return span;
}

// A sample of the state a step starts from (clock c after plan_step): `first` opens a window.
BOUSS_HD inline void plan_sample(AveragingClock& a, const StepClock& c, bool first, int every_steps,
                                 const SampleHorizon& horizon) {
  const double back = first ? 0.0 : c.start - a.last;
  const double ahead = every_steps == 1 ? c.time - c.start : span_ahead(c, horizon);
  a.weight = 0.5 * (back + ahead);
  a.total = (first ? 0.0 : a.total) + a.weight;
  a.last = c.start;
}

// The window's closing sample: the state at `time`, its end.
BOUSS_HD inline void plan_closing_sample(AveragingClock& a, double time) {
  a.weight = 0.5 * (time - a.last);
  a.total += a.weight;
  a.last = time;
}

// The mean of a sum of weighted samples, and the covariance of a and b from the sums of
// a b, a and b: <a b> - <a> <b>.
BOUSS_HD inline double time_mean(double sum, double total) { return sum / total; }
BOUSS_HD inline double time_covariance(double ab, double a, double b, double total) {
  return ab / total - (a / total) * (b / total);
}

}  // namespace bouss
