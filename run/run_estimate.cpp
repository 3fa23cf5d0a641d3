#include "run/run_estimate.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "config/units.hpp"
#include "model/simulation.hpp"
#include "physics/time_step.hpp"
#include "run/run.hpp"
#include "run/schedule.hpp"
#include "run/stream_output.hpp"

namespace bouss {

namespace {
// The developed flow's advective rate over the free-fall velocity's, U sum(1/h): see the header.
constexpr double developed_velocity_fraction = 1.0 / 3.0;
}  // namespace

StepEstimate estimate_steps(const Case& c) {
  StepEstimate e;
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
    e.rule = rate > 0 && e.dt == lim.cfl / rate
                 ? fmt::format("the CFL limit once the flow moves at about a third of the free-fall velocity "
                               "sqrt(b_T dT H) = {:.4g}",
                               free_fall)
                 : binding_time_step_limit(lim, rate);
  }
  const double cap = c.time.steps ? double(*c.time.steps) : INFINITY;
  // The last step lands on the end (physics/time_step.hpp clip_to): a partial step counts one.
  const double by_time = c.time.end ? std::ceil(double(*c.time.end) / e.dt * (1 - 1e-12)) : INFINITY;
  e.steps = std::min(by_time, cap);
  if (cap <= by_time) {
    e.rule = "time.steps";
    // No step is longer than the limits of a fluid at rest: then the count ends the run.
    e.exact = !c.time.end || e.exact || cap * stable_time_step(lim, 0) < double(*c.time.end);
  }
  return e;
}

OutputEstimate estimate_output(const Case& c, const StepEstimate& e) {
  OutputEstimate o;
  const Layout layout = Layout::make(c.n, 1, sizeof(double));
  const double duration = c.time.end ? std::min(double(*c.time.end), e.steps * e.dt) : e.steps * e.dt;
  for (const OutputStream& s : c.output.streams) {
    const double record = plan_stream(c, s, layout).record_bytes;
    // The start's record, the ones the stream's schedule makes due (the run's own rule, over the
    // estimated steps at the estimated dt), and the end's unless the last step had one.
    Schedule schedule(s.interval, s.interval_steps);
    double records = 1;
    bool last_due = false;
    for (std::int64_t step = 1; step <= std::int64_t(e.steps); ++step) {
      last_due = schedule.due(std::min(duration, double(step) * e.dt), step);
      records += last_due ? 1 : 0;
    }
    records += last_due ? 0 : 1;
    o.bytes += records * record;
    o.last_record_bytes += record;
    o.compressed = o.compressed || s.compression.enabled();
  }
  return o;
}

double estimate_wall_seconds(const TrialTiming& t, double steps, const OutputEstimate& output, double disk_rate) {
  const double stepping = t.seconds + std::max(0.0, steps - double(t.steps)) * t.tail_ms * 1e-3;
  if (!(disk_rate > 0)) return t.setup_seconds + stepping;
  // The records are written while the steps go on, the last after them, and the run ends
  // when the disk has taken them all.
  return t.setup_seconds + std::max(stepping, output.bytes / disk_rate) + output.last_record_bytes / disk_rate;
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
    long n = std::min<long>(stretch, long(std::ceil(steps_to_end)) - t.steps);
    // Within the budget at the last stretch's rate (a stretch doubles the steps timed).
    if (t.steps > 0) n = std::max(1L, std::min(n, long((budget_seconds - t.seconds) / (t.tail_ms * 1e-3)) + 1));
    double cycles = 0;
    timer.start();
    for (long s = 0; s < n; ++s) {
      run.step();
      cycles += run.simulation().last_solve().cycles;
    }
    const double ms = slowest(timer.stop_ms());
    t.steps += n;
    t.seconds += ms * 1e-3;
    t.tail_ms = ms / double(n);
    t.tail_cycles = cycles / double(n);
  }
  return t;
}

}  // namespace bouss
