// bouss run: validate, then hand the case to the run driver (solver/run.hpp) and report how
// the run ended: 0 finished (or stopped at the wall-clock limit with a checkpoint), 1 failed
// during the run (the output stays under its partial name), 2 refused before the run,
// 128 + the signal after a clean stop on SIGINT or SIGTERM.
#include <spdlog/spdlog.h>

#include <csignal>
#include <string>

#include "io/case.hpp"
#include "solver/run.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

// A word as the shell reads it back.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command that continues this run from a checkpoint ("{}").
std::string restart_command(const RunOptions& o) {
  std::string cmd = shell_word(o.program) + " run " + shell_word(o.case_file);
  if (!o.backend.empty()) cmd += " --backend " + o.backend;
  for (const auto& s : o.overrides) cmd += " --set " + shell_word(s);
  if (o.output) cmd += " --output " + shell_word(*o.output);
  if (o.wall_limit) cmd += " --wall-limit " + *o.wall_limit;
  return cmd + " --restart {}";
}

}  // namespace

int run_command(const RunOptions& o) {
  std::vector<std::string> overrides = o.overrides;
  if (o.output) overrides.push_back(output_file_override(o.case_file, *o.output));
  Case c;
  Backend backend;
  RunControl control;
  if (!load_command_case(o.case_file, overrides, o.backend, c, backend, o.decomposition)) return 2;
  try {
    if (o.wall_limit) control.wall_limit_seconds = parse_wall_time(*o.wall_limit, "--wall-limit");
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  control.progress_seconds = o.progress_seconds > 0 ? std::optional<double>(o.progress_seconds) : std::nullopt;
  control.restart = o.restart;
  control.signals = true;
  control.restart_command = restart_command(o);

  configure_logging();
  log_case_summary(c, backend);
  Run run(c, backend, control);
  if (const int refused = start_command_run(run)) return refused;
  log_solver_summary(run.simulation());
  RunEnd end;
  try {
    while (run.step()) {
    }
    end = run.finish();
  } catch (const std::exception& e) {
    std::string message = e.what();
    std::string partials;
    for (const std::string& p : run.output_partials()) partials += (partials.empty() ? "" : ", ") + p;
    if (!partials.empty()) message += "; the output so far is in " + partials;
    print_error(message);
    return 1;
  }
  const Simulation& sim = run.simulation();
  const double elapsed = run.elapsed_seconds();
  spdlog::info("done: {} steps in {:.1f} s ({:.2f} ms/step){}", run.steps_taken(), elapsed,
               1e3 * elapsed / std::max<long>(1, run.steps_taken()),
               o.restart ? fmt::format(", {} from the original start", sim.steps_done()) : "");
  if (end == RunEnd::signal) {
    const int sig = run.stop_signal();
    spdlog::info("stopped by {} at step {} (t = {:.6g}); {}", sig == SIGINT ? "SIGINT" : "SIGTERM", sim.steps_done(),
                 sim.time(), run.restart_hint());
    return 128 + sig;
  }
  if (end == RunEnd::wall_limit)
    spdlog::info("stopped before the wall-clock limit at step {} (t = {:.6g}); {}", sim.steps_done(), sim.time(),
                 run.restart_hint());
  return 0;
}

}  // namespace bouss
