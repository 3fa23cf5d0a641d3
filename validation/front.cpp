#include "validation/front.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "model/lock_exchange_diagnostics.hpp"
#include "physics/lock_exchange.hpp"
#include "run/run.hpp"
#include "validation/quiet_run.hpp"

namespace bouss {

namespace {

struct Line {
  double slope = NAN, intercept = NAN;
};

// Least-squares line y = intercept + slope t over samples [a, b), about their mean time (no
// cancellation for late windows).
Line fit_line(const std::vector<double>& t, const std::vector<double>& y, std::size_t a, std::size_t b) {
  const double n = double(b - a);
  if (b - a < 2) return {};
  double mt = 0, my = 0;
  for (std::size_t i = a; i < b; ++i) {
    mt += t[i] / n;
    my += y[i] / n;
  }
  double stt = 0, sty = 0;
  for (std::size_t i = a; i < b; ++i) {
    stt += (t[i] - mt) * (t[i] - mt);
    sty += (t[i] - mt) * (y[i] - my);
  }
  if (!(stt > 0)) return {};
  Line l;
  l.slope = sty / stt;
  l.intercept = my - l.slope * mt;
  return l;
}

}  // namespace

FrontSpeedFit fit_front_speed(const std::vector<double>& t, const std::vector<double>& travelled, double start,
                              double stop) {
  FrontSpeedFit f;
  const std::size_t count = std::min(t.size(), travelled.size());
  std::size_t a = 0;
  while (a < count && !(travelled[a] >= start)) ++a;
  std::size_t b = a;
  while (b < count && travelled[b] <= stop) ++b;
  f.samples = int(b - a);
  constexpr int fewest = 8;
  if (a == count) {
    f.problem = "the front never travelled " + std::to_string(start) + " from the lock";
    return f;
  }
  f.begin = t[a];
  f.end = t[b > a ? b - 1 : a];
  if (f.samples < fewest) {
    f.problem = "only " + std::to_string(f.samples) + " samples between travelling " + std::to_string(start) +
                " and " + std::to_string(stop) + " (at least " + std::to_string(fewest) + ")";
    return f;
  }
  const std::size_t mid = (a + b) / 2;
  const Line all = fit_line(t, travelled, a, b);
  f.speed = all.slope;
  f.first_half = fit_line(t, travelled, a, mid).slope;
  f.second_half = fit_line(t, travelled, mid, b).slope;
  double squares = 0;
  for (std::size_t i = a; i < b; ++i) {
    const double r = travelled[i] - (all.intercept + all.slope * t[i]);
    squares += r * r;
  }
  f.rms = std::sqrt(squares / f.samples);
  if (!std::isfinite(f.speed)) f.problem = "the window's samples give no line (all at one time)";
  return f;
}

FrontMeasurement measure_fronts(const Case& c, const Backend& backend, double fraction,
                                const FrontProgress& on_progress, double progress_seconds) {
  if (!is_lock_exchange(c))
    throw CaseError(c.source + ": /initial/temperature: expected the lock profile (two fluids side by side) for front "
                    "speeds");
  Lock lock;
  try {
    lock = lock_of(c, fraction);
  } catch (const std::invalid_argument& e) {
    throw CaseError(e.what());
  }
  FrontMeasurement m;
  m.fraction = fraction;
  m.n = c.n;
  const double H = c.length(2), g_reduced = std::fabs(c.physics.buoyancy) * lock.contrast();
  m.half_depth = H / 2;
  m.buoyancy_velocity = std::sqrt(g_reduced * H);
  const double T_high = std::max(c.initial.left, c.initial.right), T_low = std::min(c.initial.left, c.initial.right);

  const Case quiet = quiet_case(c);
  std::function<void(const Run&)> progress;
  if (on_progress)
    progress = [&](const Run& run) {
      on_progress(run.simulation().time(), run.simulation().steps_done(), m.floor_travelled.back(),
                  m.lid_travelled.back());
    };
  RunControl control = quiet_control(progress, progress_seconds);
  auto sample = [&](const Simulation& sim) {
    const LockDiagnostics d = lock_diagnostics(sim, lock);
    m.t.push_back(sim.time());
    m.floor_travelled.push_back(d.fronts.floor_travelled);
    m.lid_travelled.push_back(d.fronts.lid_travelled);
    m.overshoot = std::max(m.overshoot, d.temperature.T_max - T_high);
    m.undershoot = std::max(m.undershoot, T_low - d.temperature.T_min);
  };
  control.after_step = [&](Run& run) { sample(run.simulation()); };
  Run run(quiet, backend, control);
  run.start();
  const Simulation& sim = run.simulation();
  sample(sim);
  const LockDiagnostics initial = lock_diagnostics(sim, lock);
  while (run.step()) {
  }
  run.finish();
  m.time = sim.time();
  m.steps = sim.steps_done();

  // Each front's window, in distance travelled: from front_fit_start h to front_fit_wall_margin h
  // before the end wall it runs toward.
  const double h = m.half_depth;
  const double to_wall_floor = lock.dense_direction > 0 ? c.extent[0][1] - lock.position : lock.position - c.extent[0][0];
  const double to_wall_lid = lock.dense_direction > 0 ? lock.position - c.extent[0][0] : c.extent[0][1] - lock.position;
  m.floor = fit_front_speed(m.t, m.floor_travelled, front_fit_start * h, to_wall_floor - front_fit_wall_margin * h);
  m.lid = fit_front_speed(m.t, m.lid_travelled, front_fit_start * h, to_wall_lid - front_fit_wall_margin * h);
  m.froude_floor = m.floor.speed / m.buoyancy_velocity;
  m.froude_lid = m.lid.speed / m.buoyancy_velocity;

  for (const auto& diagnostics : run.case_diagnostics()) {
    auto* lock_exchange = dynamic_cast<LockExchangeSeries*>(diagnostics.get());
    if (!lock_exchange) continue;
    const LockDiagnostics end = lock_diagnostics(sim, lock);
    const EnergyBudget::Values v = lock_exchange->budget().values(end);
    m.energy_residual = v.energy_residual;
    m.energy_residual_relative = v.energy_residual / (initial.temperature.potential_energy - end.temperature.potential_energy);
    m.heat_drift = v.heat_drift;
  }
  return m;
}

}  // namespace bouss
