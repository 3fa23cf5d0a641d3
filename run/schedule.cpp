#include "run/schedule.hpp"

namespace bouss {

namespace {
// A time counts as reached within this relative margin: the steps that land on an interval
// by their own sum of dt's carry rounding.
constexpr double time_margin = 1e-12;
}  // namespace

Schedule::Schedule(std::optional<double> interval, std::optional<std::int64_t> interval_steps, double start_time)
    : interval_(interval), interval_steps_(interval_steps) {
  if (interval_) {
    // The same sums the run makes as it goes: the multiples of the interval after start_time.
    next_time_ = *interval_;
    while (next_time_ <= start_time * (1 + time_margin)) next_time_ += *interval_;
  }
}

bool Schedule::due(double time, std::int64_t step) {
  bool due = false;
  if (interval_steps_ && step % *interval_steps_ == 0) due = true;
  if (interval_ && time >= next_time_ * (1 - time_margin)) {
    due = true;
    while (next_time_ <= time * (1 + time_margin)) next_time_ += *interval_;
  }
  return due;
}

}  // namespace bouss
