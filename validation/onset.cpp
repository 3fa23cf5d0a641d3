#include "validation/onset.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/pressure_plan.hpp"
#include "run/run.hpp"
#include "validation/quiet_run.hpp"

namespace bouss {

namespace {

// Least-squares slope of y against t over samples [a, b).
double slope(const std::vector<double>& t, const std::vector<double>& y, std::size_t a, std::size_t b) {
  double st = 0, sy = 0, stt = 0, sty = 0;
  const double n = double(b - a);
  for (std::size_t i = a; i < b; ++i) {
    st += t[i];
    sy += y[i];
    stt += t[i] * t[i];
    sty += t[i] * y[i];
  }
  const double d = n * stt - st * st;
  return d > 0 ? (n * sty - st * sy) / d : 0;
}

std::string number_json(double x) { return nlohmann::json(x).dump(); }

}  // namespace

GrowthMeasurement measure_growth_rate(const Case& c, const Backend& backend, const GrowthProgress& on_progress,
                                      double progress_seconds) {
  if (!c.time.end) throw CaseError(c.source + ": /time/end: expected the duration of each growth-rate run");
  std::vector<double> t, log_energy;
  double minimum = INFINITY;
  GrowthMeasurement m;
  m.rayleigh = c.physics.rayleigh.value_or(0);
  const Case quiet = quiet_case(c);
  std::function<void(const Run&)> progress;
  if (on_progress)
    progress = [&](const Run& run) {
      m.steps = run.simulation().steps_done();
      on_progress(m, run.simulation().time());
    };
  RunControl control = quiet_control(progress, progress_seconds);
  // The kinetic energy of every step; a perturbation that has grown by 1e12 has left the
  // linear regime, and the run stops there.
  control.after_step = [&](Run& run) {
    const Simulation& sim = run.simulation();
    const double ke = sim.kinetic_energy();
    if (!(ke > 0) || !std::isfinite(ke)) return;
    t.push_back(sim.time());
    log_energy.push_back(0.5 * std::log(ke));
    minimum = std::fmin(minimum, ke);
    if (ke > 1e12 * minimum) {
      m.stopped_nonlinear = true;
      run.stop();
    }
  };
  Run run(quiet, backend, control);
  run.execute();
  m.steps = run.simulation().steps_done();
  if (t.size() < 8) throw std::runtime_error(c.source + ": too few steps with motion to measure a growth rate");
  // The second half of the run, by time.
  const double t_mid = 0.5 * (t.front() + t.back());
  std::size_t a = 0;
  while (a < t.size() && t[a] < t_mid) ++a;
  const std::size_t b = t.size(), mid = (a + b) / 2;
  m.fit_begin = t[a];
  m.fit_end = t.back();
  m.rate = slope(t, log_energy, a, b);
  m.rate_first_half = slope(t, log_energy, a, mid);
  m.rate_second_half = slope(t, log_energy, mid, b);
  return m;
}

Case case_at(const std::string& text, const std::string& source, const std::array<int, 3>& n,
             std::optional<double> rayleigh, const std::vector<std::string>& overrides) {
  std::vector<std::string> o = overrides;
  o.push_back("grid.n=[" + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) + "]");
  if (rayleigh) o.push_back("physics.rayleigh=" + number_json(*rayleigh));
  Case c = parse_case(text, source, o);
  plan_pressure(c);  // the solver's rules for this resolution's grid, as a case file meets them
  // These runs write nothing (the case is validated as written, output and checkpoints too).
  c.output.streams.clear();
  c.checkpoint = CheckpointParams{};
  return c;
}

double GrowthMeasurement::halves_tolerance() const {
  return 0.02 * std::fabs(rate) + 1e-5 / (fit_end - fit_begin);
}

std::array<int, 3> scaled_grid(const Case& c, int R) {
  if (c.n[2] == 1 && R != 1)
    throw CaseError(c.source + ": /grid/n: resolution " + std::to_string(R) +
                    " sets nz, but nz is one cell (a two-dimensional case in x and y)");
  std::array<int, 3> n{};
  for (int a = 0; a < 3; ++a) {
    if (c.n[a] == 1) {  // a one-cell (periodic) axis: the case is two-dimensional across it
      n[a] = 1;
      continue;
    }
    const long num = long(c.n[a]) * R;
    if (num % c.n[2] != 0)
      throw CaseError(c.source + ": /grid/n: resolution " + std::to_string(R) + " (nz = " + std::to_string(R) +
                      ") does not scale axis " + "xyz"[a] + " of " + std::to_string(c.n[a]) + " cells to a whole number");
    n[a] = int(num / c.n[2]);
  }
  return n;
}

OnsetResult critical_rayleigh(const std::string& text, const std::string& source, const std::array<int, 3>& n,
                              double ra1, double ra2, const Backend& backend, const std::vector<std::string>& overrides,
                              double rel_tol, int max_runs, const std::function<void(const GrowthMeasurement&)>& on_run,
                              const GrowthProgress& on_progress) {
  OnsetResult r;
  r.n = n;
  auto run = [&](double ra) {
    const GrowthMeasurement m = measure_growth_rate(case_at(text, source, n, ra, overrides), backend, on_progress);
    r.runs.push_back(m);
    if (on_run) on_run(m);
    return m.rate;
  };
  double s1 = run(ra1), s2 = run(ra2);
  double estimate = ra2;
  while (int(r.runs.size()) < max_runs) {
    if (s2 == s1) break;
    estimate = ra2 - s2 * (ra2 - ra1) / (s2 - s1);
    if (!std::isfinite(estimate) || estimate <= 0)
      throw std::runtime_error(source + ": the growth rates (" + std::to_string(s1) + " at Ra " + std::to_string(ra1) +
                               ", " + std::to_string(s2) + " at Ra " + std::to_string(ra2) +
                               ") do not bracket an onset; choose other --ra values");
    if (std::fabs(estimate - ra2) <= rel_tol * std::fabs(ra2)) break;
    const double s3 = run(estimate);
    // Keep the two latest points (the secant method).
    ra1 = ra2;
    s1 = s2;
    ra2 = estimate;
    s2 = s3;
  }
  r.rac = estimate;
  return r;
}

OnsetResult growth_rates_at(const std::string& text, const std::string& source, const std::array<int, 3>& n,
                            const std::vector<double>& rayleigh, const Backend& backend,
                            const std::vector<std::string>& overrides,
                            const std::function<void(const GrowthMeasurement&)>& on_run,
                            const GrowthProgress& on_progress) {
  OnsetResult r;
  r.n = n;
  std::vector<double> ra, rate;
  for (double value : rayleigh) {
    const GrowthMeasurement m = measure_growth_rate(case_at(text, source, n, value, overrides), backend, on_progress);
    r.runs.push_back(m);
    if (on_run) on_run(m);
    ra.push_back(value);
    rate.push_back(m.rate);
  }
  r.rac = NAN;
  if (ra.size() >= 2) {
    const double k = slope(ra, rate, 0, ra.size());
    double mean_ra = 0, mean_rate = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
      mean_ra += ra[i] / ra.size();
      mean_rate += rate[i] / ra.size();
    }
    if (k != 0) r.rac = mean_ra - mean_rate / k;
  }
  return r;
}

}  // namespace bouss
