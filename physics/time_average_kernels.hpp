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
// step's dt (the next sample's time is not known yet): exact for a fixed dt; the mean divides
// by the sum of the weights, so a constant averages to itself whatever the steps.
#pragma once

#include <cstddef>

#include "grid/backend.hpp"
#include "physics/time_step.hpp"

namespace bouss {

struct AveragingClock {
  double last = 0;    // the time of the last sample
  double weight = 0;  // the weight of the sample being taken
  double total = 0;   // the sum of the weights since the window opened
};

// A sample of the state a step starts from (clock c after plan_step): `first` opens a window.
BOUSS_HD inline void plan_sample(AveragingClock& a, const StepClock& c, bool first, int every_steps) {
  const double back = first ? 0.0 : c.start - a.last;
  const double ahead = every_steps == 1 ? c.time - c.start : every_steps * c.dt;
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
