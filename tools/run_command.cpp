// bouss run: validate, then hand the case to the run driver (run/run.hpp) and report how
// the run ended: 0 finished (or stopped at the wall-clock limit with a checkpoint), 1 failed
// during the run (the output stays under its partial name), 2 refused before the run,
// 128 + the signal after a clean stop on SIGINT, SIGTERM, SIGHUP or SIGUSR2.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <string>

#include "config/case.hpp"
#include "io/io_thread.hpp"
#include "io/run_identity.hpp"
#include "parallel/communicator.hpp"
#include "run/run.hpp"
#include "run/stop_signals.hpp"
#include "run/stream_output.hpp"
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
// Under mpirun, with the same launch: the ranks a restart needs (the block each rank holds
// comes from the checkpoint's whole arrays, but the same count keeps the same arithmetic).
std::string restart_command(const RunOptions& o) {
  const int ranks = Communicator::world()->size();
  std::string cmd = (ranks > 1 ? "mpirun -np " + std::to_string(ranks) + " " : std::string()) + shell_word(o.program) +
                    " run " + shell_word(o.case_file);
  if (!o.decomposition.empty()) cmd += " --decomposition " + o.decomposition;
  if (!o.backend.empty()) cmd += " --backend " + o.backend;
  for (const auto& s : o.overrides) cmd += " --set " + shell_word(s);
  if (o.output) cmd += " --output " + shell_word(*o.output);
  if (o.wall_limit) cmd += " --wall-limit " + *o.wall_limit;
  return cmd + " --restart {}";
}

// Whether an override names the run's files (output streams' files, the checkpoint stem).
bool names_files(const std::string& override_text) {
  const std::string key = override_text.substr(0, override_text.find('='));
  const auto ends_with = [&](const std::string& tail) {
    return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return key == "output" || key == "checkpoint" || (key.rfind("output.", 0) == 0 && ends_with(".file")) ||
         key == "checkpoint.file";
}

// A restart continues every file of the run it continues: each stream writes the file the
// checkpointing run's stream at the same place in the list wrote (the checkpoint names
// them), unless the command line names files itself (--output, or --set of a file).
std::vector<std::string> restart_file_overrides(const RunOptions& o) {
  if (!o.restart || o.output || std::any_of(o.overrides.begin(), o.overrides.end(), names_files)) return {};
  Case c;
  try {
    c = load_case(o.case_file, o.overrides);
  } catch (const std::exception&) {
    return {};  // the run reports what is wrong with the case
  }
  std::vector<std::string> files;
  bool differ = false;
  for (std::size_t k = 0; k < c.output.streams.size(); ++k) {
    std::string saved;
    try {
      saved = IoThread::instance().call([&] {
        return saved_stream_files([&](const std::string& key) { return file_text_attribute(*o.restart, "text." + key); },
                                  *o.restart, int(k))
            .file;
      });
    } catch (const std::exception&) {
      return {};  // an unreadable checkpoint: the run says why
    }
    const bool keep = saved.empty() || same_file(saved, c.output.streams[k].file);
    files.push_back(keep ? std::string() : saved);
    differ = differ || !keep;
  }
  return differ ? stream_file_overrides(o.case_file, o.overrides, files) : std::vector<std::string>{};
}

}  // namespace

int run_command(const RunOptions& o) {
  std::vector<std::string> overrides = o.overrides;
  if (o.output)
    for (const std::string& s : output_file_overrides(o.case_file, o.overrides, *o.output)) overrides.push_back(s);
  const std::vector<std::string> continued = restart_file_overrides(o);
  overrides.insert(overrides.end(), continued.begin(), continued.end());
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
  control.overwrite = o.overwrite;

  configure_logging();
  // The header after the refusals (the files of the run, memory, a checkpoint that does not
  // fit): a refused run prints its one error line and nothing else.
  Run run(c, backend, control);
  if (const int refused = start_command_run(run)) return refused;
  log_case_summary(c, backend);
  if (!continued.empty())
    spdlog::info("continuing the files of the run that wrote {} (docs/runs.md, \"Restart\")", *o.restart);
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
    spdlog::info("stopped by {} at step {} (t = {:.6g}); {}", stop_signals::name(sig), sim.steps_done(), sim.time(),
                 run.restart_hint());
    return 128 + sig;
  }
  if (end == RunEnd::wall_limit)
    spdlog::info("stopped before the wall-clock limit at step {} (t = {:.6g}); {}", sim.steps_done(), sim.time(),
                 run.restart_hint());
  return 0;
}

}  // namespace bouss
