// bouss onset:    critical Rayleigh numbers by growth rates and secant iteration, per resolution,
//                 with Richardson extrapolation (validation/onset.hpp, validation/convergence.hpp).
// bouss converge: a diagnostic at the end of a run at several resolutions, its observed order,
//                 and whether each run ended steady (validation/steadiness.hpp).
// bouss front:    a lock exchange's front speeds and Froude numbers per resolution, fitted over
//                 the constant-speed phase, with the convergence of each (validation/front.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "model/diagnostics.hpp"
#include "physics/lock_exchange.hpp"
#include "run/run.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"
#include "validation/convergence.hpp"
#include "validation/series_statistics.hpp"
#include "validation/front.hpp"
#include "validation/onset.hpp"
#include "validation/steadiness.hpp"

namespace bouss {

namespace {

std::string grid_name(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

// The grids of --resolutions (nz of each, increasing), or the case's own grid.
std::vector<std::array<int, 3>> resolution_grids(const Case& base, const std::vector<int>& resolutions) {
  for (std::size_t i = 1; i < resolutions.size(); ++i)
    if (resolutions[i] <= resolutions[i - 1])
      throw CaseError("--resolutions: expected increasing nz, got " + std::to_string(resolutions[i - 1]) + " then " +
                      std::to_string(resolutions[i]));
  std::vector<std::array<int, 3>> grids;
  for (int R : resolutions.empty() ? std::vector<int>{base.n[2]} : resolutions) grids.push_back(scaled_grid(base, R));
  return grids;
}

std::vector<int> nz_of(const std::vector<std::array<int, 3>>& grids) {
  std::vector<int> nz;
  for (const auto& n : grids) nz.push_back(n[2]);
  return nz;
}

// The table of values, differences and orders; with `steadiness`, a drift and a steady column
// ("mean" where an unsteady run's value is its mean over its statistically steady part,
// `means`, with its standard error), and a '*' on each order and extrapolation taken from a
// value that is neither steady nor such a mean.
void print_table(const char* value_name, const std::vector<std::array<int, 3>>& grids, const ConvergenceTable& t,
                 const std::vector<SteadinessJudgement>* steadiness = nullptr,
                 const std::vector<SeriesStatistics>* means = nullptr) {
  auto averaged = [&](std::size_t i) { return means && !(*steadiness)[i].steady && (*means)[i].steady; };
  auto unsteady = [&](std::size_t i) { return steadiness && !(*steadiness)[i].steady && !averaged(i); };
  bool any_mean = false;
  for (std::size_t i = 0; i < grids.size(); ++i) any_mean = any_mean || averaged(i);
  std::printf("%-14s %14s %12s %8s", "resolution", value_name, "difference", "order");
  if (steadiness) std::printf(" %9s %7s", "drift", "steady");
  if (any_mean) std::printf(" %10s", "sem");
  std::printf("\n");
  bool marked = false;
  for (std::size_t i = 0; i < grids.size(); ++i) {
    std::printf("%-14s %14.6f", grid_name(grids[i]).c_str(), t.values[i]);
    if (i >= 1) std::printf(" %12.6f", t.differences[i]); else std::printf(" %12s", "-");
    if (i >= 2 && std::isfinite(t.orders[i])) {
      const bool mark = unsteady(i) || unsteady(i - 1) || unsteady(i - 2);
      marked = marked || mark;
      std::printf(" %7.3f%s", t.orders[i], mark ? "*" : " ");
    } else {
      std::printf(" %8s", "-");
    }
    if (steadiness) std::printf(" %9.1e %7s", (*steadiness)[i].drift, averaged(i) ? "mean" : unsteady(i) ? "NO" : "yes");
    if (averaged(i)) std::printf(" %10.2e", (*means)[i].sem);
    else if (any_mean) std::printf(" %10s", "-");
    std::printf("\n");
  }
  if (grids.size() >= 2) {
    const std::size_t n = grids.size();
    const bool mark = unsteady(n - 1) || unsteady(n - 2);
    marked = marked || mark;
    std::printf("%-14s %14.6f%s  (Richardson at order %g from the two finest, ratio %.4g)\n", "h -> 0", t.extrapolated,
                mark ? "*" : "", scheme_order, t.extrapolation_ratio);
  }
  if (any_mean)
    std::printf("mean: a run that ended unsteady, its time mean over its statistically steady part (bouss stats), "
                "with its standard error\n");
  if (marked) std::printf("* from a value that is not steady\n");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "--set time.end=6" (or time.steps): twice the case's run, for a warning that asks for a longer one.
std::string longer_run(const Case& c) {
  if (c.time.end) return fmt::format("--set time.end={:g}", 2 * *c.time.end);
  return fmt::format("--set time.steps={}", 2 * c.time.steps.value_or(0));
}

// What every study command starts from: the case's text (rescaled for each resolution), the
// case as given (after --set), the backend and the grid of each resolution. `check` applies
// the command's own rules to the case before the grids are made; a CaseError (or any
// exception) names the file and the rule.
struct Study {
  std::string text;
  Case base;
  Backend backend;
  std::vector<std::array<int, 3>> grids;
};

Study load_study(const ValidationOptions& o, const std::function<void(const Case&)>& check) {
  Study s;
  s.text = read_case_text(o.case_file);
  s.base = parse_case(s.text, o.case_file, o.overrides);
  plan_pressure(s.base);  // the solver's name and its rules for the grid, before anything runs
  s.backend = on_the_ranks(Backend::from_name(o.backend.empty() ? s.base.backend : o.backend));
  if (check) check(s.base);
  s.grids = resolution_grids(s.base, o.resolutions);
  return s;
}

}  // namespace

int onset_command(const ValidationOptions& o) {
  Study study;
  try {
    study = load_study(o, [&](const Case& base) {
      if (!base.physics.rayleigh)
        throw CaseError(o.case_file + ": /physics/rayleigh: expected the rayleigh/prandtl form for an onset search");
      if (!base.time.end) throw CaseError(o.case_file + ": /time/end: expected the duration of each growth-rate run");
    });
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  const std::string& text = study.text;
  const Case& base = study.base;
  const Backend& backend = study.backend;
  const std::vector<std::array<int, 3>>& grids = study.grids;
  configure_logging(o.json);
  // Under mpirun every rank runs the same study on its blocks; the first rank reports it.
  const bool speaks = backend.ranks().rank() == 0;
  if (!speaks && !std::freopen("/dev/null", "w", stdout)) return 1;
  const double ra1 = o.ra.size() == 2 ? o.ra[0] : 0.97 * *base.physics.rayleigh;
  const double ra2 = o.ra.size() == 2 ? o.ra[1] : 1.03 * *base.physics.rayleigh;
  if (!o.json)
    spdlog::info("onset of \"{}\" ({}): growth rates over t in [{:g}/2, {:g}], secant from Ra {:g}, {:g}; {}", base.name,
                 o.case_file, *base.time.end, *base.time.end, ra1, ra2, backend.describe());
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> racs;
  bool all_fits_agree = true;
  const auto t0 = std::chrono::steady_clock::now();
  auto report_run = [&](const std::array<int, 3>& n) {
    return [&o, &base, &all_fits_agree, n](const GrowthMeasurement& m) {
      if (!o.json)
        spdlog::info("  {:>12}  Ra {:12.6f}  sigma {:+.6e}  (fit t in [{:.4g}, {:.4g}]; halves {:+.5e} {:+.5e}; {} steps{})",
                     grid_name(n), m.rayleigh, m.rate, m.fit_begin, m.fit_end, m.rate_first_half, m.rate_second_half,
                     m.steps, m.stopped_nonlinear ? ", stopped: nonlinear" : "");
      // A fit whose halves differ still holds the transient: its rate is biased (on stderr with --json).
      if (!m.halves_agree()) {
        all_fits_agree = false;
        spdlog::warn("warning: {} Ra {:.6f}: the fit's halves differ by {:.2e} ({:+.4e} and {:+.4e}; agreement: "
                     "within 2% of the rate + 1e-5/W = {:.2e}, W = {:.4g}): the transient has not passed and the rate "
                     "is biased; run longer ({})",
                     grid_name(n), m.rayleigh, std::fabs(m.rate_first_half - m.rate_second_half), m.rate_first_half,
                     m.rate_second_half, m.halves_tolerance(), m.fit_end - m.fit_begin, longer_run(base));
      }
    };
  };
  // Long runs say how far they are (on stderr with --json, so stdout stays one JSON object).
  auto progress = [&o, speaks](const GrowthMeasurement& m, double t) {
    const std::string line = fmt::format("    Ra {:.6f}: t = {:.4g} ({} steps)", m.rayleigh, t, m.steps);
    if (o.json && speaks) std::fprintf(stderr, "%s\n", line.c_str());
    else spdlog::info("{}", line);
  };
  try {
    for (const auto& n : grids) {
      const auto t_row = std::chrono::steady_clock::now();
      // Finer rows start from a tight bracket around the value the coarser rows predict
      // (second-order convergence at the actual ratio of the resolutions, validation/convergence.hpp).
      double lo = ra1, hi = ra2;
      if (!racs.empty()) {
        const std::size_t k = racs.size();
        const double predicted =
            k >= 2 && std::isfinite(racs[k - 2]) && std::isfinite(racs[k - 1])
                ? predicted_value(grids[k - 2][2], racs[k - 2], grids[k - 1][2], racs[k - 1], n[2], scheme_order)
                : racs.back();
        if (std::isfinite(predicted)) {
          lo = predicted * (1 - 2e-3);
          hi = predicted * (1 + 2e-3);
        }
      }
      const OnsetResult r = !o.rates.empty()
                                ? growth_rates_at(text, o.case_file, n, o.rates, backend, o.overrides, report_run(n), progress)
                                : critical_rayleigh(text, o.case_file, n, lo, hi, backend, o.overrides, 1e-6, 8,
                                                    report_run(n), progress);
      racs.push_back(r.rac);
      nlohmann::json rates = nlohmann::json::array(), fits = nlohmann::json::array();
      bool row_fits_agree = true;
      for (const auto& m : r.runs) {
        rates.push_back({m.rayleigh, m.rate});
        fits.push_back({{"ra", m.rayleigh},
                        {"rate", m.rate},
                        {"halves", {m.rate_first_half, m.rate_second_half}},
                        {"halves_agree", m.halves_agree()}});
        row_fits_agree = row_fits_agree && m.halves_agree();
      }
      rows.push_back({{"n", n},
                      {"rac", r.rac},
                      {"growth_rates", rates},
                      {"fits", fits},
                      {"fit_halves_agree", row_fits_agree},
                      {"fit_window", {r.runs.back().fit_begin, r.runs.back().fit_end}},
                      {"seconds", seconds_since(t_row)}});
      if (std::isfinite(r.rac)) {
        if (!o.json)
          spdlog::info("{}: Ra_c = {:.6f} ({} runs, {:.1f} s)", grid_name(n), r.rac, r.runs.size(), seconds_since(t_row));
      } else {
        // --rates at one Rayleigh number (or several rates at the same one): a rate, no crossing.
        const GrowthMeasurement& m = r.runs.back();
        spdlog::info("{}: sigma = {:+.6e} at Ra {:.6f}; Ra_c is where the rates cross zero, which takes rates at two "
                     "different Rayleigh numbers (--rates RA1,RA2)",
                     grid_name(n), m.rate, m.rayleigh);
      }
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  const bool every_rac = std::all_of(racs.begin(), racs.end(), [](double x) { return std::isfinite(x); });
  const ConvergenceTable t = convergence_table(nz_of(grids), racs);
  if (o.json) {
    nlohmann::json out = {{"case", base.name},
                          {"rows", rows},
                          {"order", t.observed_order},
                          {"extrapolated", t.extrapolated},
                          {"fit_halves_agree", all_fits_agree},
                          {"seconds", seconds_since(t0)}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    if (every_rac) print_table("Ra_c", grids, t);
    spdlog::info("done in {:.1f} s", seconds_since(t0));
  }
  return 0;
}

int converge_command(const ValidationOptions& o) {
  Study study;
  try {
    const FlowDiagnostic* measure = find_flow_diagnostic(o.diagnostic);
    if (!measure || !measure->steady_measure) {
      std::string known;
      for (const FlowDiagnostic& d : flow_diagnostics())
        if (d.steady_measure) known += (known.empty() ? "" : ", ") + d.info.name;
      throw CaseError("--diagnostic " + o.diagnostic + ": expected one of " + known);
    }
    study = load_study(o, {});
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  const std::string& text = study.text;
  const Case& base = study.base;
  const Backend& backend = study.backend;
  const std::vector<std::array<int, 3>>& grids = study.grids;
  configure_logging(o.json);
  std::vector<double> values;
  std::vector<SteadinessJudgement> steadiness;
  std::vector<SeriesStatistics> means;
  nlohmann::json rows = nlohmann::json::array();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (const auto& n : grids) {
      const auto t_row = std::chrono::steady_clock::now();
      Case c = case_at(text, o.case_file, n, std::nullopt, o.overrides);
      // With --output-dir: each run's diagnostics series, and its first and last temperature.
      if (!o.output_dir.empty()) {
        OutputStream s;
        s.file = o.output_dir + "/" + c.name + "_" + grid_name(n) + ".nc";
        s.fields = {"T"};
        s.diagnostics = true;
        c.output.streams = {s};
      }
      // The diagnostics over the last 20% of the run, to judge whether it ended steady.
      SteadinessWindow window(o.diagnostic, side_walls_exchange_no_heat(c));
      RunControl control;
      control.progress_seconds.reset();
      control.overwrite = o.overwrite;
      // And the diagnostic's series (every output.diagnostics_interval_steps steps, as the
      // output's series): an unsteady run's value is its mean over its statistically steady part.
      std::vector<double> series_t, series_x;
      const std::int64_t every = c.output.diagnostics_interval_steps;
      control.after_step = [&](Run& r) {
        const Simulation& sim = r.simulation();
        window.observe(sim);
        if (sim.steps_done() % every == 0) {
          series_t.push_back(sim.time());
          series_x.push_back(diagnostic_value(sim.diagnostics(), o.diagnostic));
        }
      };
      Run run(c, backend, control);
      run.execute();
      const Simulation& sim = run.simulation();
      window.finish(sim);
      const SteadinessJudgement j = window.judge();
      const Diagnostics d = sim.diagnostics();
      const SeriesStatistics stats = j.steady ? SeriesStatistics{} : series_statistics(series_t, series_x);
      const double v = stats.steady ? stats.mean : diagnostic_value(d, o.diagnostic);
      values.push_back(v);
      steadiness.push_back(j);
      means.push_back(stats);
      rows.push_back({{"n", n},
                      {"value", v},
                      {"time", sim.time()},
                      {"steps", sim.steps_done()},
                      {"nusselt", {d.nusselt.bottom, d.nusselt.top, d.nusselt.volume}},
                      {"steady", j.steady},
                      {"drift", j.drift},
                      {"nusselt_spread", j.nusselt_spread},
                      {"steady_window", {j.window_begin, j.window_end}},
                      {"mean", stats.steady ? nlohmann::json{{"start_time", stats.start_time},
                                                             {"mean", stats.mean},
                                                             {"std", stats.std},
                                                             {"sem", stats.sem},
                                                             {"n_eff", stats.n_eff}}
                                            : nlohmann::json(nullptr)},
                      {"seconds", seconds_since(t_row)}});
      if (!o.json)
        spdlog::info("{}: {} = {:.6f} at t = {:g} ({} steps, {:.1f} s; Nu bottom {:.5f} top {:.5f} volume {:.5f}; "
                     "drift {:.1e})",
                     grid_name(n), o.diagnostic, diagnostic_value(d, o.diagnostic), sim.time(), sim.steps_done(), seconds_since(t_row),
                     d.nusselt.bottom, d.nusselt.top, d.nusselt.volume, j.drift);
      if (!j.steady && stats.steady)
        spdlog::info("{}: unsteady ({}): its value is the time mean from t = {:.4g} on, {:.6f} +- {:.2e} (standard "
                     "error, {:.0f} independent samples)",
                     grid_name(n), j.reason, stats.start_time, stats.mean, stats.sem, stats.n_eff);
      else if (!j.steady)
        spdlog::warn("warning: {}: {} = {:.6f} at t = {:g} is not steady: {}, and has no statistically steady part "
                     "({}); run longer ({})",
                     grid_name(n), o.diagnostic, v, sim.time(), j.reason, stats.reason, longer_run(c));
    }
  } catch (const std::exception& e) {
    return report_failure(e);  // 2 for a refusal (an earlier run's file in --output-dir), 1 for a failed run
  }
  const ConvergenceTable t = convergence_table(nz_of(grids), values);
  bool all_steady = true;  // each value steady, or the mean of a statistically steady part
  for (std::size_t i = 0; i < steadiness.size(); ++i) all_steady = all_steady && (steadiness[i].steady || means[i].steady);
  if (o.json) {
    nlohmann::json out = {{"case", base.name},
                          {"diagnostic", o.diagnostic},
                          {"rows", rows},
                          {"order", t.observed_order},
                          {"extrapolated", t.extrapolated},
                          {"steady", all_steady},
                          {"steady_tolerance", steady_tolerance},
                          {"steady_window_fraction", steady_window_fraction},
                          {"seconds", seconds_since(t0)}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_table(o.diagnostic.c_str(), grids, t, &steadiness, &means);
  }
  return 0;
}

namespace {

nlohmann::json fit_json(const FrontSpeedFit& f, double froude) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"speed", number(f.speed)},
          {"froude", number(froude)},
          {"fit_window", {number(f.begin), number(f.end)}},
          {"halves", {number(f.first_half), number(f.second_half)}},
          {"halves_agree", f.halves_agree()},
          {"rms", number(f.rms)},
          {"samples", f.samples},
          {"problem", f.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.problem)}};
}

std::string fit_text(const char* which, const FrontSpeedFit& f, double froude) {
  if (!f.fitted()) return fmt::format("{} no fit", which);
  return fmt::format("{} U {:.5f} Fr {:.5f} (fit t in [{:.4g}, {:.4g}], {} samples; halves {:.5f} {:.5f}; rms {:.2g})",
                     which, f.speed, froude, f.begin, f.end, f.samples, f.first_half, f.second_half, f.rms);
}

}  // namespace

int front_command(const ValidationOptions& o) {
  Study study;
  try {
    study = load_study(o, [&](const Case& base) {
      if (!is_lock_exchange(base))
        throw CaseError(o.case_file + ": /initial/temperature: expected the lock profile (two fluids side by side) for "
                        "front speeds");
      if (!(o.fraction > 0 && o.fraction < 1))
        throw CaseError("--fraction: expected a number in (0, 1), got " + std::to_string(o.fraction));
    });
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  const std::string& text = study.text;
  const Case& base = study.base;
  const Backend& backend = study.backend;
  const std::vector<std::array<int, 3>>& grids = study.grids;
  configure_logging(o.json);
  const double h = base.length(2) / 2;
  if (!o.json)
    spdlog::info("fronts of \"{}\" ({}) to t = {:g}: where T departs from the fluid ahead by {:g} of the fluids' "
                 "difference; speeds fitted from {:g} h travelled to {:g} h before the end wall (h = {:g}); "
                 "Fr = U / sqrt(g' H); {}",
                 base.name, o.case_file, base.time.end.value_or(NAN), o.fraction, front_fit_start, front_fit_wall_margin,
                 h, backend.describe());
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> froude_floor, froude_lid;
  bool all_fits_agree = true;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (const auto& n : grids) {
      const auto t_row = std::chrono::steady_clock::now();
      const Case c = case_at(text, o.case_file, n, std::nullopt, o.overrides);
      // Long runs say how far they are (on stderr with --json, so stdout stays one JSON object).
      auto progress = [&o, n](double t, long steps, double floor, double lid) {
        const std::string line =
            fmt::format("    {}: t = {:.4g} ({} steps), fronts travelled {:.4f} (floor) {:.4f} (lid)", grid_name(n), t,
                        steps, floor, lid);
        if (o.json) std::fprintf(stderr, "%s\n", line.c_str());
        else spdlog::info("{}", line);
      };
      const FrontMeasurement m = measure_fronts(c, backend, o.fraction, progress);
      froude_floor.push_back(m.froude_floor);
      froude_lid.push_back(m.froude_lid);
      const double seconds = seconds_since(t_row);
      rows.push_back({{"n", n},
                      {"floor", fit_json(m.floor, m.froude_floor)},
                      {"lid", fit_json(m.lid, m.froude_lid)},
                      {"overshoot", m.overshoot},
                      {"undershoot", m.undershoot},
                      {"energy_residual", m.energy_residual},
                      {"energy_residual_relative", m.energy_residual_relative},
                      {"heat_drift", m.heat_drift},
                      {"time", m.time},
                      {"steps", m.steps},
                      {"seconds", seconds}});
      if (!o.json)
        spdlog::info("{}: {}; {}; T over {:.3g} under {:.3g} the fluids' range; energy residual {:.2e} ({:.2e} of the "
                     "PE released); heat drift {:.1e} ({} steps to t = {:g}, {:.1f} s)",
                     grid_name(n), fit_text("floor", m.floor, m.froude_floor), fit_text("lid", m.lid, m.froude_lid),
                     m.overshoot, m.undershoot, m.energy_residual, m.energy_residual_relative, m.heat_drift, m.steps,
                     m.time, seconds);
      for (const auto* f : {&m.floor, &m.lid}) {
        const char* which = f == &m.floor ? "floor" : "lid";
        if (!f->fitted()) {
          all_fits_agree = false;
          spdlog::warn("warning: {} {} front: no speed: {}; run longer ({})", grid_name(n), which, f->problem,
                       longer_run(base));
        } else if (!f->halves_agree()) {
          all_fits_agree = false;
          spdlog::warn("warning: {} {} front: the fit's halves differ by {:.2e} ({:.5f} and {:.5f}; agreement: within "
                       "{:g}% of the speed): the speed was not constant over t in [{:.4g}, {:.4g}] (the release's "
                       "acceleration, or a front that moves in jumps on a coarse grid)",
                       grid_name(n), which, std::fabs(f->first_half - f->second_half), f->first_half, f->second_half,
                       100 * front_halves_tolerance, f->begin, f->end);
        }
      }
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  const ConvergenceTable floor_table = convergence_table(nz_of(grids), froude_floor);
  const ConvergenceTable lid_table = convergence_table(nz_of(grids), froude_lid);
  auto finite = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  auto every = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  };
  if (o.json) {
    nlohmann::json out = {{"case", base.name},
                          {"fraction", o.fraction},
                          {"fit_start", front_fit_start * h},
                          {"fit_wall_margin", front_fit_wall_margin * h},
                          {"rows", rows},
                          {"froude_floor", {{"order", finite(floor_table.observed_order)},
                                            {"extrapolated", finite(floor_table.extrapolated)}}},
                          {"froude_lid", {{"order", finite(lid_table.observed_order)},
                                          {"extrapolated", finite(lid_table.extrapolated)}}},
                          {"fit_halves_agree", all_fits_agree},
                          {"seconds", seconds_since(t0)}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    if (every(froude_floor)) print_table("Fr floor", grids, floor_table);
    if (every(froude_lid)) print_table("Fr lid", grids, lid_table);
    spdlog::info("done in {:.1f} s", seconds_since(t0));
  }
  return 0;
}

}  // namespace bouss
