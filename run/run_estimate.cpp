#include "run/run_estimate.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "config/units.hpp"
#include "model/simulation.hpp"
#include "physics/time_step.hpp"
#include "run/run.hpp"

namespace bouss {

namespace {
// The developed flow's advective rate over the free-fall velocity's, U sum(1/h): see the header.
constexpr double developed_velocity_fraction = 1.0 / 3.0;
}  // namespace

StepEstimate estimate_steps(const Case& c) {
  StepEstimate e;
  const std::optional<double> end = c.time.end ? std::optional<double>(double(*c.time.end)) : std::nullopt;
  const double cap = c.time.steps ? double(*c.time.steps) : INFINITY;
  if (!end) {
    e.steps = cap;
    e.exact = true;
    e.rule = "time.steps";
    return e;
  }
  const StepLimits lim = step_limits(c, make_grid(c, sizeof(double)));
  if (lim.fixed_dt > 0) {
    e.dt = lim.fixed_dt;
    e.rule = "time.dt";
    e.exact = true;
  } else {
    double inverse_spacings = 0;
    for (int a = 0; a < 3; ++a)
      if (c.n[a] > 1) inverse_spacings += c.n[a] / c.length(a);
    const double free_fall = std::sqrt(std::fabs(c.physics.buoyancy) * temperature_contrast(c) * c.length(2));
    const double rate = developed_velocity_fraction * free_fall * inverse_spacings;
    e.dt = stable_time_step(lim, rate);
    const char* rule = binding_time_step_limit(lim, rate);
    e.rule = rate > 0 && e.dt == lim.cfl / rate
                 ? fmt::format("the CFL limit once the flow moves at about a third of the free-fall velocity "
                               "sqrt(b_T dT H) = {:.4g}",
                               free_fall)
                 : rule;
  }
  // The last step lands on the end (physics/time_step.hpp clip_to): a partial step counts one.
  const double by_time = std::ceil(*end / e.dt * (1 - 1e-12));
  e.steps = std::min(by_time, cap);
  if (cap < by_time) {
    e.rule = "time.steps";
    // No step is longer than the limits of a fluid at rest: then the count ends the run.
    e.exact = e.exact || cap * stable_time_step(lim, 0) < *end;
  }
  return e;
}

TrialTiming time_trial_steps(const Case& c, const Backend& backend, double steps_to_end, double budget_seconds) {
  const Communicator& ranks = backend.ranks();
  const auto slowest = [&](double seconds) { return combine_across_ranks(ranks, seconds, [](double a, double b) {
                                               return std::max(a, b);
                                             }); };
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  Case trial = c;
  trial.output.streams.clear();
  trial.checkpoint = CheckpointParams{};
  trial.time.steps.reset();  // the trial decides how many steps run
  trial.time.end.reset();
  RunControl control;
  control.progress_seconds.reset();
  TrialTiming t;
  const clock::time_point begun = clock::now();
  Run run(trial, backend, control);
  run.start();
  backend.synchronize();
  t.setup_seconds = slowest(since(begun));
  RegionTimer timer(backend);
  for (long stretch = 1; t.steps < steps_to_end && t.seconds < budget_seconds; stretch *= 2) {
    const long n = std::min<long>(stretch, long(std::ceil(steps_to_end)) - t.steps);
    timer.start();
    for (long s = 0; s < n; ++s) run.step();
    const double ms = slowest(timer.stop_ms());
    t.steps += n;
    t.seconds += ms * 1e-3;
    t.tail_ms = ms / double(n);
  }
  return t;
}

}  // namespace bouss
