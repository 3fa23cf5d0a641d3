// When a periodic action of a run is due (snapshots, averages, checkpoints): at each multiple
// of a time interval (the run's steps land on it: time.land_on_outputs; else at the first
// step that reaches it) and/or every so many steps. Oceananigans' TimeInterval and
// IterationInterval, in one object.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace bouss {

class Schedule {
 public:
  Schedule() = default;
  // Due at the multiples of `interval` after `start_time` and/or at steps divisible by
  // `interval_steps` (counted from the original start).
  Schedule(std::optional<double> interval, std::optional<std::int64_t> interval_steps, double start_time = 0);

  // Whether the action is due at the state (time, step); when due by time, the next due
  // time moves past `time`. Call once per step, in step order.
  bool due(double time, std::int64_t step);

  bool active() const { return interval_ || interval_steps_; }
  std::optional<double> interval() const { return interval_; }
  // The next multiple of the interval that makes it due (infinite: none): k * interval, a
  // product (not a sum of intervals) rounded to 15 significant digits, so that the third of
  // an interval of 0.1 is the double nearest 0.3 (what `ds.sel(time=0.3)` looks for), not
  // 3 * 0.1 = 0.30000000000000004.
  double next_time() const { return next_time_; }
  // The steps from `step` (steps done) to the next step the step interval makes it due at
  // (the largest int64 without a step interval).
  std::int64_t steps_to_next(std::int64_t step) const {
    return interval_steps_ ? *interval_steps_ - step % *interval_steps_ : std::numeric_limits<std::int64_t>::max();
  }
  // Continues from a stored next_time() (a checkpoint's).
  void set_next_time(double t);

 private:
  std::optional<double> interval_;
  std::optional<std::int64_t> interval_steps_;
  std::int64_t multiple_ = 1;
  double next_time_ = std::numeric_limits<double>::infinity();
  void set_multiple(std::int64_t k);
};

}  // namespace bouss
