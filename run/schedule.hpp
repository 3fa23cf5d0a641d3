// When a periodic action of a run is due (snapshots, checkpoints): at the first step that
// reaches each multiple of a time interval (the time step is not shortened for it) and/or
// every so many steps. Oceananigans' TimeInterval and IterationInterval, in one object.
#pragma once

#include <cstdint>
#include <optional>

namespace bouss {

class Schedule {
 public:
  Schedule() = default;
  // Due at the first multiples of `interval` after `start_time` and/or at steps divisible by
  // `interval_steps` (counted from the original start).
  Schedule(std::optional<double> interval, std::optional<std::int64_t> interval_steps, double start_time = 0);

  // Whether the action is due at the state (time, step); when due by time, the next due
  // time moves past `time`. Call once per step, in step order.
  bool due(double time, std::int64_t step);

  bool active() const { return interval_ || interval_steps_; }
  std::optional<double> interval() const { return interval_; }
  // The next multiple of the interval that makes it due (for checkpoints of the run).
  double next_time() const { return next_time_; }
  void set_next_time(double t) { next_time_ = t; }

 private:
  std::optional<double> interval_;
  std::optional<std::int64_t> interval_steps_;
  double next_time_ = 0;
};

}  // namespace bouss
