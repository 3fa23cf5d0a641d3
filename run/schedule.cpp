#include "run/schedule.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace bouss {

namespace {
// A time counts as reached within this relative margin: a run that does not land on its
// output times (time.land_on_outputs false) reaches them by its own sum of dt's.
constexpr double time_margin = 1e-12;
}  // namespace

void Schedule::set_multiple(std::int64_t k) {
  multiple_ = k;
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", double(k) * *interval_);
  next_time_ = std::strtod(text, nullptr);
}

Schedule::Schedule(std::optional<double> interval, std::optional<std::int64_t> interval_steps, double start_time)
    : interval_(interval), interval_steps_(interval_steps) {
  if (interval_) {
    // The first multiple of the interval after start_time.
    set_multiple(std::max<std::int64_t>(1, std::int64_t(std::floor(start_time / *interval_))));
    while (next_time() <= start_time * (1 + time_margin)) set_multiple(multiple_ + 1);
  }
}

void Schedule::set_next_time(double t) {
  if (interval_) set_multiple(std::max<std::int64_t>(1, std::llround(t / *interval_)));
}

bool Schedule::due(double time, std::int64_t step) {
  bool due = false;
  if (interval_steps_ && step % *interval_steps_ == 0) due = true;
  if (interval_ && time >= next_time() * (1 - time_margin)) {
    due = true;
    while (next_time() <= time * (1 + time_margin)) set_multiple(multiple_ + 1);
  }
  return due;
}

}  // namespace bouss
