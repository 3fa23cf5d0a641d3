// bouss run: validate, check the output path, allocate, step, write snapshots, report.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "io/case.hpp"
#include "io/netcdf_writer.hpp"
#include "solver/simulation.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

std::vector<SnapshotField> snapshot(const Simulation& sim) {
  std::vector<SnapshotField> out;
  for (const auto& name : sim.config().output.fields) out.push_back({name, sim.host_values(name)});
  return out;
}

std::map<std::string, double> snapshot_scalars(const Simulation& sim) { return {{"step", double(sim.steps_done())}}; }

// The diagnostics of one series record, and the growth rate of the kinetic energy since
// the previous record: sigma = d ln(KE) / dt / 2 (KE grows as exp(2 sigma t)).
class DiagnosticsSeries {
 public:
  std::map<std::string, double> record(const Simulation& sim, const Diagnostics& d) {
    std::map<std::string, double> r = {{"kinetic_energy", d.kinetic_energy}, {"max_divergence", d.max_divergence},
                                       {"max_velocity", d.max_velocity},     {"dt", sim.last_dt()},
                                       {"pressure_cycles", double(sim.last_solve().cycles)}};
    if (sim.has_plates()) {
      r["nusselt_bottom"] = d.nusselt.bottom;
      r["nusselt_top"] = d.nusselt.top;
      r["nusselt_volume"] = d.nusselt.volume;
    }
    growth_ = NAN;
    if (d.kinetic_energy > 0 && last_energy_ > 0 && sim.time() > last_time_)
      growth_ = 0.5 * std::log(d.kinetic_energy / last_energy_) / (sim.time() - last_time_);
    r["growth_rate"] = growth_;
    last_energy_ = d.kinetic_energy;
    last_time_ = sim.time();
    return r;
  }
  double growth_rate() const { return growth_; }

 private:
  double last_energy_ = 0, last_time_ = 0, growth_ = NAN;
};

// When the next snapshot is due, by simulation time and/or step count.
class OutputSchedule {
 public:
  explicit OutputSchedule(const OutputParams& p) : p_(p), next_time_(p.interval.value_or(0)) {}
  bool due(const Simulation& sim) {
    bool due = false;
    if (p_.interval_steps && sim.steps_done() % *p_.interval_steps == 0) due = true;
    if (p_.interval && sim.time() >= next_time_ * (1 - 1e-12)) {
      due = true;
      while (next_time_ <= sim.time() * (1 + 1e-12)) next_time_ += *p_.interval;
    }
    return due;
  }

 private:
  OutputParams p_;
  double next_time_;
};

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

}  // namespace

int run_command(const RunOptions& o) {
  std::vector<std::string> overrides = o.overrides;
  if (o.output) overrides.push_back("output.file=\"" + json_escape(*o.output) + "\"");
  Case c;
  Backend backend;
  try {
    c = load_case(o.case_file, overrides);
    backend = Backend::from_name(o.backend.empty() ? c.backend : o.backend);
    if (!c.output.file.empty()) check_output_writable(c.output.file);
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }

  configure_logging();
  log_case_summary(c, backend);
  std::unique_ptr<NetcdfWriter> writer;  // outlives the try: a failed run says where its partial file is
  try {
    Simulation sim(c, backend);
    log_solver_summary(sim);
    if (!c.output.file.empty()) {
      writer = std::make_unique<NetcdfWriter>(c.output.file, c);
      writer->write(sim.time(), snapshot(sim), snapshot_scalars(sim));
    }
    DiagnosticsSeries series;
    Diagnostics latest = sim.diagnostics();
    if (writer) writer->write_series(sim.time(), series.record(sim, latest));
    OutputSchedule schedule(c.output);
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto last_report = start;
    bool written_last = true;
    while (!sim.finished()) {
      sim.step();
      written_last = false;
      const bool series_due = sim.steps_done() % c.output.diagnostics_interval_steps == 0;
      if (series_due) {
        latest = sim.diagnostics();
        const auto values = series.record(sim, latest);
        if (writer) writer->write_series(sim.time(), values);
      }
      if (writer && schedule.due(sim)) {
        writer->write(sim.time(), snapshot(sim), snapshot_scalars(sim));
        written_last = true;
      }
      const auto now = clock::now();
      if (std::chrono::duration<double>(now - last_report).count() >= o.progress_seconds || sim.finished()) {
        last_report = now;
        if (!series_due) latest = sim.diagnostics();
        if (!std::isfinite(latest.kinetic_energy))
          throw std::runtime_error("step " + std::to_string(sim.steps_done()) + ": the kinetic energy is not finite; "
                                   "the run blew up: lower time.cfl or time.dt");
        const double elapsed = std::chrono::duration<double>(now - start).count();
        const double done = progress_fraction(sim);
        std::string nusselt;
        if (sim.has_plates())
          nusselt = fmt::format("  Nu {:.4f} {:.4f} {:.4f}", latest.nusselt.bottom, latest.nusselt.top,
                                latest.nusselt.volume);
        spdlog::info("step {:>7}  t {:.5g}  dt {:.3e}  ETA {}  | mg {}  max|div u| {:.1e}  KE {:.4e}  sigma {:.4g}{}",
                     sim.steps_done(), sim.time(), sim.last_dt(),
                     clock_text(done > 0 ? elapsed * (1 - done) / done : NAN), sim.last_solve().cycles,
                     latest.max_divergence, latest.kinetic_energy, series.growth_rate(), nusselt);
      }
    }
    if (writer) {
      if (!written_last) writer->write(sim.time(), snapshot(sim), snapshot_scalars(sim));
      writer->close();
      spdlog::info("wrote {} ({} snapshots, {} diagnostics records, t = 0 .. {:.5g})", c.output.file,
                   writer->records(), writer->series_records(), sim.time());
    }
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    spdlog::info("done: {} steps in {:.1f} s ({:.2f} ms/step)", sim.steps_done(), elapsed,
                 1e3 * elapsed / std::max<long>(1, sim.steps_done()));
  } catch (const std::exception& e) {
    std::string message = e.what();
    if (writer && !writer->closed() && message.find(writer->partial_path()) == std::string::npos)
      message += "; the output so far (" + std::to_string(writer->records()) + " snapshots) is in " +
                 writer->partial_path();
    print_error(message);
    return 1;
  }
  return 0;
}

}  // namespace bouss
