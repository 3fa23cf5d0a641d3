// The run driver: the one time loop of bouss (Oceananigans' `run!`, CaNS's main loop).
// A Run owns the simulation, the output schedule and writer, the diagnostics series,
// checkpoints, progress lines and the stop flag; `bouss run`, `bench`, `onset` and
// `converge` are thin callers of it.
//
// Each step, in order: the step itself; the pressure solve's convergence accounting; the
// energy budget's integration (lock exchanges, model/energy_budget.hpp); a diagnostics
// record when due; a snapshot when due; a checkpoint when due (or asked for by
// SIGUSR1); the caller's after_step hook; a progress line when due; the stop conditions
// (the end of the case, a stop signal, the wall-clock limit, the caller's stop()).
// At the end: when the run stops early (or has checkpoints) a checkpoint first, then the
// final diagnostics record and snapshot (unless this step had them), then the output is
// closed under its final name. A checkpoint's record counts exclude those final records,
// so a restart into the same file continues exactly as an uninterrupted run.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "config/case.hpp"
#include "run/restart_compatibility.hpp"
#include "run/diagnostics_series.hpp"
#include "run/run_files.hpp"
#include "run/schedule.hpp"
#include "model/diagnostics.hpp"
#include "model/simulation.hpp"
#include "run/stream_output.hpp"

namespace bouss {

class Run;

struct RunControl {
  std::optional<double> progress_seconds = 5;  // wall seconds between progress lines (0: every step); none: no lines
  std::function<void(const Run&)> progress;  // replaces the default progress line
  std::function<void(Run&)> after_step;      // called after every step's duties
  std::optional<std::string> restart;        // a checkpoint to continue from
  std::optional<double> wall_limit_seconds;  // checkpoint and stop before this much wall time
  bool signals = false;                      // obey SIGINT, SIGTERM, SIGHUP, SIGUSR1 (run/stop_signals.hpp)
  // Replace what an earlier run left under this run's names (--overwrite; the case's
  // "overwrite" says the same): run/run_files.hpp.
  bool overwrite = false;
  bool series = true;                        // keep the diagnostics series (written when there is output)
  std::string restart_command;               // the command that continues this run, with "{}" for the checkpoint
  // What `restart` must share with the case: everything (a continuation), or only the flow
  // problem (bench --from: the checkpoint's flow timed under another solver or precision).
  RestartScope restart_scope = RestartScope::continuation;
};

enum class RunEnd { finished, signal, wall_limit, caller };

// Fraction of the case's run done, by steps or by time, whichever ends it first.
double progress_fraction(const Simulation& sim);

class Run {
 public:
  Run(const Case& c, const Backend& backend, RunControl control = {});
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Before the first step: refuses what cannot run (throws CaseError: memory, the files of
  // the run (run/run_files.hpp), an incompatible checkpoint) before allocating, then
  // allocates and either writes the initial records or restores the checkpoint and reopens
  // the output.
  void start();
  // After start() failed: removes the partial files this run created (they hold no more
  // than its initial records), so that a run that did not start leaves nothing behind.
  void abandon_start();
  // One step and its duties; false when the run should end (finish() next).
  bool step();
  // The end of the run (see the header comment); returns why it ended.
  RunEnd finish();
  // start(), step() until it returns false, finish().
  RunEnd execute();
  // Ends the run after the current step (from an after_step hook, say).
  void stop() { stop_ = true; }

  Simulation& simulation() { return *sim_; }
  const Simulation& simulation() const { return *sim_; }
  const Case& config() const { return case_; }
  const DiagnosticsSeries& series() const { return series_; }
  // The diagnostics the case's physics adds to the series (model/diagnostics.hpp: the lock
  // exchange's fronts and energy budget).
  const std::vector<std::unique_ptr<CaseDiagnostics>>& case_diagnostics() const { return case_diagnostics_; }
  RunEnd end() const { return end_; }
  int stop_signal() const { return stop_signal_; }
  double elapsed_seconds() const;
  // Steps this run took (a restarted run counts from its checkpoint).
  long steps_taken() const { return sim_ && first_step_ >= 0 ? sim_->steps_done() - first_step_ : 0; }
  // The first stream's final file name, and the partial name it is written under ("" without output).
  std::string output_file() const;
  std::string output_partial() const;
  // Every stream's partial file (for messages after a failure).
  std::vector<std::string> output_partials() const;
  const std::string& last_checkpoint() const { return last_checkpoint_; }
  // The run's identity (io/run_identity.hpp): new at a fresh start, the checkpoint's on a restart.
  const std::string& run_id() const { return run_id_; }
  // The stem checkpoints are named after (STEM.checkpoint.<step>.nc).
  std::string checkpoint_stem() const;
  // Waits until everything queued for the output is written, and on the disk (fsync).
  void flush_output();
  // Writes a checkpoint of the current state now (it must be finite); returns its path.
  std::string write_checkpoint();
  // The line that tells a user how to continue from the last checkpoint.
  std::string restart_hint() const;

 private:
  void open_outputs();
  void start_fresh();
  void start_from_checkpoint();
  void record_series();
  // The descriptions of the series' variables: the flow's and the case's diagnostics.
  std::vector<DiagnosticInfo> series_info() const;
  void account_pressure_solve();
  void report_progress();
  bool wall_limit_near() const;
  double next_output_time() const;
  void watch_step_starts();
  void agree(const std::function<void()>& work) const;
  bool may_checkpoint() const;
  void prepare_files(const std::vector<std::string>& continued, bool own_legacy);

  Case case_;
  Backend backend_;
  RunControl control_;
  std::unique_ptr<Simulation> sim_;
  // The output streams; their files live on the IO thread (io/io_thread.hpp): records reach
  // them through each stream's staging ring, diagnostics records and checkpoints as queued jobs.
  std::vector<std::unique_ptr<StreamOutput>> streams_;
  StreamOutput* series_output_ = nullptr;  // the stream that holds the diagnostics series
  std::atomic<bool> checkpoint_pending_{false};  // cleared by the IO thread
  DiagnosticsSeries series_;
  std::vector<std::unique_ptr<CaseDiagnostics>> case_diagnostics_;
  Schedule checkpoints_;
  std::string run_id_;
  std::unique_ptr<RunFiles> files_;  // the writer rank's claims on the run's names
  std::vector<std::string> written_checkpoints_;
  std::string last_checkpoint_;
  std::int64_t checkpoint_step_ = -1, series_step_ = -1;
  int pressure_failures_ = 0;
  bool stop_ = false;
  int stop_signal_ = 0;
  RunEnd end_ = RunEnd::finished;
  bool started_ = false, finished_ = false;
  using clock = std::chrono::steady_clock;
  clock::time_point start_time_, last_progress_;
  std::int64_t progress_step_ = -1;
  long first_step_ = -1;         // steps done when this run started (the checkpoint's step); -1 until it has
  double first_fraction_ = 0;    // the fraction of the case done then
  double slowest_step_ = 0;
  std::atomic<double> slowest_checkpoint_{0};  // set by the IO thread
};

}  // namespace bouss
