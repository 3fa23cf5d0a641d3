// bouss check: a dry run. Validates the case (after --set) and prints, a labelled line each,
// the memory the run will allocate against what the machine has, the first time step, the
// pressure solver, the steps and wall time to the end (a few steps from rest timed on the
// backend, unless --no-trial), the output and checkpoint plan; writes nothing and exits (0
// when the run would start, 2 when it would be refused). --json: the case with every
// default filled in, alone.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "config/case_json.hpp"
#include "io/disk_rate.hpp"
#include "io/file_util.hpp"
#include "parallel/communicator.hpp"
#include "physics/time_step.hpp"
#include "run/initial_state.hpp"
#include "run/run_files.hpp"
#include "run/run_estimate.hpp"
#include "run/run_memory.hpp"
#include "model/simulation.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

std::string schedule_text(const std::optional<double>& interval, const std::optional<std::int64_t>& steps) {
  std::string s;
  if (interval) s += fmt::format("every {:g} time units", *interval);
  if (steps) s += (s.empty() ? "every " : " and every ") + (*steps == 1 ? "step" : std::to_string(*steps) + " steps");
  return s;
}

std::string format_seconds(double s) {
  if (s < 60) return fmt::format("{:.2g} s", s);
  if (s < 3600) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

// "until t = END: about N steps (dt about DT: RULE), about W on this backend (set-up S, K steps
// timed from rest in T, then MS ms/step)": the steps from the case's limits (run/run_estimate.hpp),
// the wall time from the case's first steps, run and timed.
std::string runs_line(const Case& c, const PressurePlan& plan, const Backend& backend, bool trial,
                      double startup_seconds) {
  std::string line;
  if (c.time.steps) line = std::to_string(*c.time.steps) + " steps";
  if (c.time.end) line += fmt::format("{}until t = {:g}", line.empty() ? "" : " or ", *c.time.end);
  StepEstimate e;
  try {
    e = estimate_steps(c);
  } catch (const std::exception& ex) {
    return line + " (no estimate: " + ex.what() + ")";
  }
  const char* about = e.exact ? "" : "about ";
  if (c.time.steps && e.steps == double(*c.time.steps) && c.time.end)
    line += fmt::format(": {}{:.0f} steps (time.steps ends it first)", about, e.steps);
  else if (c.time.end)
    line += fmt::format(": {}{:.0f} steps (dt {}{:.4g}: {})", about, e.steps, about, e.dt, e.rule);
  if (!trial) return line + "; no trial steps, no wall-time estimate";
  TrialTiming t;
  try {
    t = time_trial_steps(c, backend, e.steps, 2.0);
  } catch (const std::exception& ex) {
    return line + "; no wall-time estimate: the trial steps failed: " + ex.what();
  }
  std::string rest = double(t.steps) < e.steps ? fmt::format(", then {:.3g} ms/step", t.tail_ms) : ", all of them";
  // An iterative solve's work a step falls as the flow from rest smooths: say how much it was.
  const char* unit = plan.type().iteration_unit();
  if (std::string(unit) != "passes") rest += fmt::format(" at {:.3g} {} a step", t.tail_cycles, unit);
  // The output: its bytes at the rate the disk under the first stream's folder takes them.
  const OutputEstimate out = estimate_output(c, e);
  double disk = 0;
  std::string written;
  if (out.bytes > 0) {
    // The folder the run would create, or the nearest one above it that exists.
    std::filesystem::path folder = std::filesystem::path(absolute_path(c.output.streams.front().file)).parent_path();
    std::error_code ec;
    while (!std::filesystem::is_directory(folder, ec) && folder.has_relative_path()) folder = folder.parent_path();
    try {
      disk = disk_rate(folder.string(), std::clamp(out.bytes, double(16 << 20), double(64 << 20)));
      written = fmt::format("; output {} at the disk's {}/s{}", format_bytes(out.bytes), format_bytes(disk),
                            out.compressed ? ", uncompressed: the compression's own time is not estimated (zlib takes "
                                               "tens of MB/s: docs/performance.md, \"What output costs\")"
                                             : "");
    } catch (const std::exception& ex) {
      written = fmt::format("; output {} not timed: {}", format_bytes(out.bytes), ex.what());
    }
  }
  return line + fmt::format(", about {} on this backend (start-up {}, set-up {}, {} steps timed from rest in {}{}{})",
                            format_seconds(startup_seconds + estimate_wall_seconds(t, e.steps, out, disk)),
                            format_seconds(startup_seconds), format_seconds(t.setup_seconds), t.steps,
                            format_seconds(t.seconds), rest, written);
}

}  // namespace

int check_command(const RunOptions& o) {
  std::vector<std::string> overrides = o.overrides;
  if (o.output)
    for (const std::string& s : output_file_overrides(o.case_file, o.overrides, *o.output)) overrides.push_back(s);
  Case c;
  Backend backend;
  // The start-up a run pays too before its set-up: reading the case, the backend (a GPU's
  // context and libraries).
  const auto entered = std::chrono::steady_clock::now();
  if (!load_command_case(o.case_file, overrides, o.backend, c, backend)) return 2;
  const double startup = std::chrono::duration<double>(std::chrono::steady_clock::now() - entered).count();
  // Under mpirun every rank checks its own block; the first rank reports.
  const Communicator& ranks = backend.ranks();
  if (ranks.rank() != 0 && !std::freopen("/dev/null", "w", stdout)) return 1;
  // The answer first: the summary, one labelled line each (scripts read the labels); the case
  // with its defaults filled in only with --json, alone.
  if (o.json) std::printf("%s\n", case_to_json(c).dump(2).c_str());
  else std::printf("case: %s is valid (--json prints it with every default filled in)\n", c.source.c_str());
  int status = 0;
  std::string memory, refused, initial;
  try {
    const MemoryEstimate m = estimate_memory(c, backend);
    // Under several ranks each rank's own need (its block, and on rank 0 the gathered
    // levels): the largest over the ranks is shown, with the rank that has it.
    const double mine[3] = {m.device_peak(), m.host_peak(backend), m.backend_bytes + m.host_bytes};
    std::vector<double> all(3 * std::size_t(ranks.size()));
    ranks.allgather(mine, all.data(), sizeof mine);
    int largest = 0;
    const int key = backend.is_cuda() ? 0 : 1;
    for (int r = 1; r < ranks.size(); ++r)
      if (all[3 * std::size_t(r) + key] > all[3 * std::size_t(largest) + key]) largest = r;
    const double* big = &all[3 * std::size_t(largest)];
    const std::string whose = ranks.alone() ? "" : fmt::format(" of rank {}, the most of the {} ranks", largest, ranks.size());
    if (backend.is_cuda())
      memory = "memory: " + format_bytes(big[0]) + " on the GPU" + whose + " (" + format_bytes(double(backend.available_bytes())) +
               " free), " + format_bytes(big[1]) + " on the host at the peak (" +
               format_bytes(double(Backend::host_available_bytes())) + " available)";
    else
      memory = "memory: " + format_bytes(big[1]) + " on the host at the peak" + whose + ", " + format_bytes(big[2]) +
               " of it for the whole run (" + format_bytes(double(Backend::host_available_bytes())) + " available)";
    try {
      check_memory(c, backend);
      // The files of the run, as bouss run would find them (run/run_files.hpp): clashes
      // with its inputs, another live run's names, an earlier run's files.
      if (ranks.rank() == 0) {
        const RunFiles files(c, true, "");
        files.refuse_clashes();
        files.refuse_live_claims();
        files.refuse_earlier(o.overwrite || c.overwrite, {}, "", false);
      }
      // The file the state comes from (initial.from), read and compared as bouss run would.
      if (c.initial.from) {
        const StateFile s = read_initial_state(c);
        initial = fmt::format("initial: {} record {} of {} (t = {:.6g}), its {}x{}x{} grid carried onto {}x{}x{}{}",
                              s.path, s.record, s.records, s.time, s.source.n[0], s.source.n[1], s.source.n[2],
                              c.n[0], c.n[1], c.n[2], c.initial.from->continue_time ? "; the run starts at its time" : "");
      }
    } catch (const std::exception& e) {
      refused = e.what();
    }
  } catch (const std::exception& e) {
    refused = e.what();
  }
  // The first refusal of any rank, reported once.
  const std::string agreed = first_failure(ranks, !refused.empty(), refused);
  if (!agreed.empty()) {
    if (ranks.rank() == 0) print_error(agreed);
    status = 2;
  }
  if (o.json) return status;
  std::printf("backend: %s\n%s\n", backend.describe().c_str(), memory.c_str());
  try {
    // The fluid starts at rest: the advective limit does not bind the first step.
    const StepLimits lim = step_limits(c, make_grid(c, sizeof(double)));
    const double dt = stable_time_step(lim, 0);
    std::printf("first dt: %.6g (%s%s)\n", clip_to_end(dt, 0, c.time.end), binding_time_step_limit(lim, 0),
                c.time.dt ? "" : "; the fluid starts at rest");
  } catch (const std::exception& e) {
    std::printf("first dt: none (%s)\n", e.what());
  }
  if (!initial.empty()) std::printf("%s\n", initial.c_str());
  const PressurePlan plan = plan_pressure(c);
  std::printf("pressure: %s\n", describe_pressure(c, plan, backend).c_str());
  std::printf("runs: %s\n", runs_line(c, plan, backend, status == 0 && !o.no_trial, startup).c_str());
  if (c.output.streams.empty()) std::printf("output: none\n");
  for (const OutputStream& s : c.output.streams) {
    const std::string when = schedule_text(s.interval, s.interval_steps);
    std::string what;
    for (const auto& f : s.fields) what += (what.empty() ? "fields " : " ") + f;
    if (!s.profiles.empty()) what += what.empty() ? "profiles" : "; profiles";
    for (const auto& p : s.profiles) what += " " + p;
    what += std::string("; ") + type_name(s.precision);
    if (!s.region.whole())
      what += fmt::format("; the plane {} = {:g} (cell {})", "xyz"[s.region.axis], s.region.coordinate, s.region.index);
    if (s.compression.enabled()) {
      what += fmt::format("; deflate {}{}", s.compression.deflate, s.compression.shuffle ? " with shuffle" : "");
      if (s.compression.significant_digits) what += fmt::format(", {} significant digits", *s.compression.significant_digits);
    }
    const std::string series =
        s.diagnostics ? fmt::format("; diagnostics every {} steps", c.output.diagnostics_interval_steps) : "";
    if (s.average.enabled) {
      what += "; time means";
      for (const auto& m : s.average.moments) what += " and " + moment_variable(m);
      what += s.average.every_steps == 1 ? " sampled every step" : fmt::format(" sampled every {} steps", s.average.every_steps);
      std::printf("output: %s (%s; records of the means over each interval, %s, and the end%s)\n",
                  absolute_path(s.file).c_str(), what.c_str(), when.c_str(), series.c_str());
    } else {
      std::printf("output: %s (%s; records at the start%s and the end%s)\n", absolute_path(s.file).c_str(), what.c_str(),
                  when.empty() ? "" : (", " + when).c_str(), series.c_str());
    }
  }
  const std::string home = absolute_path(checkpoint_stem(c)) + ".checkpoint.<step>.nc";
  if (c.checkpoint.enabled())
    std::printf("checkpoints: %s, %s, the last %d kept\n", home.c_str(),
                schedule_text(c.checkpoint.interval, c.checkpoint.interval_steps).c_str(), c.checkpoint.keep);
  else
    std::printf("checkpoints: none scheduled; SIGINT, SIGTERM, SIGHUP, SIGUSR1 and --wall-limit write one as %s\n",
                home.c_str());
  std::printf("paths: relative ones are taken from the working folder, %s\n", absolute_path(".").c_str());
  return status;
}

}  // namespace bouss
