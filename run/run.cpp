#include "run/run.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "io/build_info.hpp"
#include "io/checkpoint.hpp"
#include "grid/field_ops.hpp"
#include "io/file_util.hpp"
#include "io/flush_journal.hpp"
#include "io/netcdf_handles.hpp"
#include "io/netcdf_writer.hpp"
#include "run/initial_state.hpp"
#include "run/restart_compatibility.hpp"
#include "io/run_identity.hpp"
#include "grid/gather.hpp"
#include "run/run_memory.hpp"
#include "run/stop_signals.hpp"

namespace bouss {

namespace fs = std::filesystem;

namespace {


std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

double state_value(const Checkpoint& ck, const char* key) {
  auto it = ck.state.find(key);
  if (it == ck.state.end()) throw std::runtime_error("checkpoint state lacks " + std::string(key));
  return it->second;
}

}  // namespace

double progress_fraction(const Simulation& sim) {
  const Case& c = sim.config();
  double f = 0;
  if (c.time.steps) f = std::max(f, double(sim.steps_done()) / double(*c.time.steps));
  if (c.time.end) f = std::max(f, sim.time() / *c.time.end);
  return std::min(f, 1.0);
}

Run::Run(const Case& c, const Backend& backend, RunControl control)
    : case_(c), backend_(backend), control_(std::move(control)) {
  // Under several ranks the case records them and their process grid (the output's
  // mpi_ranks and decomposition attributes).
  if (!backend_.ranks().alone()) {
    case_.decomposition = decompose(case_, backend_.ranks()).dims;
    case_.ranks = backend_.ranks().size();
  }
}

// Every rank throws the first failing rank's error when any failed (a CaseError stays one),
// so that no rank goes on into a collective the others never reach.
void Run::agree(const std::function<void()>& work) const {
  bool failed = false, case_error = false;
  std::string message;
  try {
    work();
  } catch (const CaseError& e) {
    failed = case_error = true;
    message = e.what();
  } catch (const std::exception& e) {
    failed = true;
    message = e.what();
  }
  const Communicator& ranks = backend_.ranks();
  if (ranks.alone()) {
    if (!failed) return;
    if (case_error) throw CaseError(message);
    throw std::runtime_error(message);
  }
  const std::string first = first_failure(ranks, failed, (case_error ? "C" : "R") + message);
  if (first.empty()) return;
  if (first[0] == 'C') throw CaseError(first.substr(1));
  throw std::runtime_error(first.substr(1));
}

// Every job queued for this run (snapshot slabs reading the staging ring, checkpoints) has
// run, or been skipped after a failure, before the ring and the writer go.
Run::~Run() { IoThread::instance().cleanup([] {}); }

double Run::elapsed_seconds() const { return std::chrono::duration<double>(clock::now() - start_time_).count(); }

std::string Run::output_file() const {
  return case_.output.streams.empty() ? std::string() : case_.output.streams.front().file;
}

std::string Run::output_partial() const { return streams_.empty() ? std::string() : streams_.front()->partial(); }

std::vector<std::string> Run::output_partials() const {
  std::vector<std::string> out;
  for (const auto& s : streams_)
    if (!s->partial().empty()) out.push_back(s->partial());
  return out;
}

std::string Run::checkpoint_stem() const { return bouss::checkpoint_stem(case_); }

void Run::start() {
  if (started_) throw std::logic_error("Run::start called twice");
  started_ = true;
  start_time_ = last_progress_ = clock::now();
  if (control_.signals) stop_signals::install();
  IoThread::instance().clear_failure();  // a failure of an earlier run in this process was reported there
  if (control_.restart) start_from_checkpoint();
  else start_fresh();
  // The initial records (and a restart's copied ones) on the disk before the first step: a
  // run that cannot write them (a file size limit, a full disk) has not started, and
  // abandon_start() leaves nothing of it behind.
  agree([] {
    IoThread::instance().drain();
    IoThread::instance().check();
  });
  first_step_ = sim_->steps_done();
  first_fraction_ = progress_fraction(*sim_);
  // Where this process holds a partial file (under ranks, the rank that names the files): the
  // others keep the plain line rather than naming none.
  std::string partials;
  for (const std::string& p : output_partials()) partials += (partials.empty() ? "" : ", ") + p;
  if (!partials.empty()) {
    stop_signals::set_abort_message("bouss: second signal: stopped at once; the output so far is in " + partials +
                                    " (up to its last flush)");
  }
}

void Run::abandon_start() {
  if (started_ && first_step_ < 0) {
    IoThread::instance().cleanup([] {});  // every job queued for the streams has run or been skipped
    for (const std::string& p : output_partials()) std::remove(p.c_str());
  }
}

bool Run::may_checkpoint() const {
  return case_.checkpoint.enabled() || control_.signals || control_.wall_limit_seconds.has_value();
}

// Refusals that need no allocation, on every rank: memory; then, on the writer rank, the
// files of the run (run/run_files.hpp): clashes with its inputs, paths that cannot be
// written, names another live run holds, and files an earlier run left (unless the run may
// overwrite them, when that run's checkpoints of the stem go). `continued`: the files a
// restart continues.
void Run::prepare_files(const std::vector<std::string>& continued, bool own_legacy) {
  check_memory(case_, backend_);
  if (backend_.ranks().rank() != 0) return;  // the writer rank's files
  auto files = std::make_unique<RunFiles>(case_, may_checkpoint(), control_.restart.value_or(""));
  files->refuse_clashes();
  try {
    for (const OutputStream& s : case_.output.streams) check_output_writable(s.file);
    if (!files->stem().empty()) check_output_writable(checkpoint_path(files->stem(), 0));
  } catch (const CaseError&) {
    throw;
  } catch (const std::exception& e) {
    throw CaseError(e.what());
  }
  files->claim();
  for (const std::string& removed : files->remove_killed_checkpoint_partials())
    spdlog::info("removed {}, a checkpoint a killed run was writing", removed);
  const bool overwrite = control_.overwrite || case_.overwrite;
  files->refuse_earlier(overwrite, continued, run_id_, own_legacy);
  if (overwrite) files->remove_earlier_checkpoints(run_id_, own_legacy);
  files_ = std::move(files);
}

void Run::start_fresh() {
  run_id_ = new_run_id();
  case_.run_id = run_id_;
  std::optional<StateFile> initial;
  if (case_.initial.from) {  // read (or refused) before any file of the run is touched
    initial = read_initial_state(case_);
    case_.initial.from->source_time = initial->time;
    case_.initial.from->source_record = initial->record;
  }
  agree([&] { prepare_files({}, false); });
  sim_ = make_simulation(case_, backend_);
  if (initial) {
    start_from_state(*sim_, case_, *initial);
    initial.reset();
  }
  case_diagnostics_ = bouss::case_diagnostics(*sim_);
  for (auto& d : case_diagnostics_) d->start(*sim_);
  checkpoints_ = Schedule(case_.checkpoint.interval, case_.checkpoint.interval_steps, sim_->time());
  open_outputs();
  for (auto& s : streams_) s->schedule() = Schedule(s->config().interval, s->config().interval_steps, sim_->time());
  agree([&] {
    for (auto& s : streams_) s->open(sim_->grid().whole().layout, series_info());
    for (auto& s : streams_) s->begin_averaging(*sim_);
  });
  watch_step_starts();
  for (auto& s : streams_) s->write_record(*sim_);  // an averaged stream's first window opens
  if (control_.series) record_series();
}

// The streams, not yet open (each opens its file and staging ring when it starts).
void Run::open_outputs() {
  streams_.clear();
  series_output_ = nullptr;
  for (std::size_t i = 0; i < case_.output.streams.size(); ++i) {
    streams_.push_back(std::make_unique<StreamOutput>(case_, case_.output.streams[i], int(i), backend_));
    if (case_.output.streams[i].diagnostics) series_output_ = streams_.back().get();
  }
}

void Run::start_from_checkpoint() {
  const std::string& path = *control_.restart;
  const auto t0 = clock::now();
  Checkpoint ck;
  // Every rank reads its own block of each array (one hyperslab: no rank holds a whole one).
  const Grid part = rank_grid(case_, backend_.ranks());
  // The grid arrays come one at a time (restore); the flat and region arrays (a time average's
  // sums, this rank's share of them) now.
  CheckpointBlock block{case_.n, {}, std::array<Box, 4>{}, std::set<std::string>{}, true};
  for (int s = 0; s < 4; ++s) {
    block.boxes[std::size_t(s)] = block_box(part, Stagger(s));
    (*block.shares)[std::size_t(s)] = supplied_box_in_whole(part, Stagger(s));
  }
  agree([&] {
    try {
      ck = IoThread::instance().call([&] { return read_checkpoint(path, block); });
    } catch (const std::exception& e) {
      throw CaseError(e.what());
    }
  });
  const Case saved = parse_case(ck.case_json, path + " (its case)");
  const auto solver = ck.text.find(checkpoint_solver_key);
  const std::string saved_solver = solver == ck.text.end() ? std::string() : solver->second;
  const std::vector<std::string> differences = restart_differences(saved, case_, control_.restart_scope, saved_solver);
  if (!differences.empty()) {
    std::string more = differences.size() > 1 ? " (and " + std::to_string(differences.size() - 1) + " more)" : "";
    throw CaseError(path + (control_.restart_scope == RestartScope::continuation
                                ? ": cannot continue " + case_.source + " from this checkpoint: "
                                : ": holds another problem than " + case_.source + ": ") +
                    differences.front() + more);
  }
  if (control_.restart_scope == RestartScope::continuation)
    if (const auto change = restart_solver_change(saved, case_, saved_solver)) spdlog::warn("{}: {}", path, *change);
  const bool past_steps = case_.time.steps && ck.step >= *case_.time.steps;
  const bool past_end = case_.time.end && ck.time >= *case_.time.end * (1 - 1e-14);
  if (past_steps || past_end)
    throw CaseError(case_.source + ": /time: the checkpoint " + path + " is at step " + std::to_string(ck.step) +
                    ", t = " + fmt::format("{:.6g}", ck.time) + ", where the case already ends: raise " +
                    (past_steps ? "time.steps" : "time.end") + " to continue");
  // The run it continues: the checkpoint's identity (one written before runs had one
  // starts a new identity, and its files cannot be checked).
  const auto id = ck.text.find(checkpoint_run_id_key);
  const bool legacy = id == ck.text.end() || id->second.empty();
  run_id_ = legacy ? new_run_id() : id->second;
  case_.run_id = run_id_;
  if (legacy && control_.restart_scope == RestartScope::continuation)
    spdlog::warn("{} was written before checkpoints named their run: that the files it continues are its run's "
                 "cannot be checked", path);
  // Which stream continues which file of the checkpointing run (by its place in that run's
  // list, the files compared by identity), and the file its records are copied from: the
  // partial file the checkpointing run was writing if it was killed, else the finished file.
  // (Decided before this run creates its own partials, which may reuse a name.)
  struct Continuation {
    int saved = -1;
    std::string source, superseded_partial;
  };
  std::vector<Continuation> continuations(case_.output.streams.size());
  std::vector<std::string> continued;
  for (std::size_t i = 0; i < case_.output.streams.size(); ++i) {
    const OutputStream& o = case_.output.streams[i];
    Continuation& k = continuations[i];
    const auto text = [&](const std::string& key) {
      const auto it = ck.text.find(key);
      return it == ck.text.end() ? std::string() : it->second;
    };
    std::string partial;
    for (int j = 0;; ++j) {
      const SavedStreamFiles saved = saved_stream_files(text, path, j);
      if (saved.file.empty()) break;
      if (same_file(saved.file, o.file)) {
        k.saved = j;
        partial = saved.partial;
      }
    }
    if (k.saved < 0) continue;
    const bool from_partial = !partial.empty() && path_kind(partial) == PathKind::regular;
    k.source = from_partial ? partial : o.file;
    if (from_partial) k.superseded_partial = partial;
    continued.push_back(o.file);
  }
  agree([&] {
    // A file is continued only from a checkpoint of the run that wrote it: another run's
    // records would put two flows in one file. Then the files' checks, as for a fresh run.
    for (const Continuation& k : continuations) {
      if (k.saved < 0 || legacy || backend_.ranks().rank() != 0) continue;
      std::string file_id;
      try {
        // A killed run's partial file caught inside a flush reads as its last flush left it
        // once that flush is completed from its journal (io/flush_journal.hpp).
        file_id = IoThread::instance().call([&] {
          replay_flush_journal(k.source);
          return file_text_attribute(k.source, output_run_id_attribute);
        });
      } catch (const std::exception&) {
        continue;  // unreadable: copy_records_from says why
      }
      if (file_id != run_id_)
        throw CaseError(path + ": cannot continue " + k.source + " from this checkpoint: another run wrote the file (" +
                        (file_id.empty() ? std::string("it names no run") : "run " + file_id) + ", the checkpoint run " +
                        run_id_ + "), and continuing it would put two flows in one file; continue into a new file "
                        "with --output NEW.nc");
    }
    prepare_files(continued, legacy);
  });

  sim_ = make_simulation(case_, backend_);
  // Each array's block read when the simulation takes it: this rank holds one array besides its
  // fields. A read that fails on a rank gives zeros there, and the ranks agree on it after the
  // restore (whose ghost fills every rank makes).
  std::string unread;
  std::vector<CheckpointChecksum> checksums = ck.checksums;  // this rank's parts, checked together below
  double reading = 0;  // seconds in the arrays' reads (the rest: onto the device, the checks)
  const auto read_array = [&](const std::string& name, std::vector<double>& values) {
    if (!ck.listed.count(name)) return false;
    CheckpointBlock one = block;
    one.arrays = std::set<std::string>{name};
    one.others = false;
    try {
      const auto began = clock::now();
      Checkpoint part = IoThread::instance().call([&] { return read_checkpoint(path, one); });
      reading += std::chrono::duration<double>(clock::now() - began).count();
      checksums.insert(checksums.end(), part.checksums.begin(), part.checksums.end());
      for (CheckpointArray& a : part.arrays)
        if (a.name == name) return values = std::move(a.values), true;
    } catch (const std::exception& e) {
      if (unread.empty()) unread = e.what();
    }
    if (unread.empty()) unread = path + ": array '" + name + "' could not be read";
    values.assign(std::size_t(one.boxes[std::size_t(int(field_named(name).stagger))].cells()), 0.0);
    return true;
  };
  sim_->restore(read_array, ck.time, ck.last_dt, long(ck.step), int(state_value(ck, "pressure_cycles")));
  agree([&] {
    if (!unread.empty()) throw CaseError(unread);
  });
  agree([&] {
    const std::string damaged = checkpoint_checksum_failure(path, checksums, backend_.ranks());
    if (!damaged.empty()) throw CaseError(damaged);
  });
  std::error_code size_error;
  const auto bytes = fs::file_size(path, size_error);
  spdlog::info("read {} ({}, {:.2f} s, the arrays' reads {:.2f}{}; checksums match)", path,
               size_error ? std::string("?") : format_bytes(double(bytes)),
               std::chrono::duration<double>(clock::now() - t0).count(), reading,
               backend_.ranks().alone() ? "" : "; every rank its block");
  series_.restore(ck.state);
  case_diagnostics_ = bouss::case_diagnostics(*sim_);
  for (auto& d : case_diagnostics_)
    if (!d->restore(*sim_, ck.state)) {
      spdlog::warn("{} holds no state of the case's diagnostics (written before bouss kept them: the lock "
                   "exchange's energy budget): their integrals start again at the restart, t = {:.6g}", path, ck.time);
      d->start(*sim_);
    }
  pressure_failures_ = int(state_value(ck, "pressure_failures"));
  series_step_ = state_value(ck, "series_at_step") != 0 ? ck.step : -1;
  checkpoint_step_ = ck.step;  // this state is saved already
  // Schedules: their stored next times continue bit for bit when the interval is the same.
  checkpoints_ = Schedule(case_.checkpoint.interval, case_.checkpoint.interval_steps, ck.time);
  if (case_.checkpoint.interval && ck.state.count("checkpoint_interval") &&
      ck.state.at("checkpoint_interval") == *case_.checkpoint.interval)
    checkpoints_.set_next_time(state_value(ck, "checkpoint_next_time"));
  // The record a run from another run's file started from, for the provenance of the files
  // this restart writes (a checkpoint written before it was kept has none: left as 0).
  if (auto& from = case_.initial.from; from && ck.state.count("initial_record")) {
    from->source_record = long(ck.state.at("initial_record"));
    from->source_time = ck.state.at("initial_time");
  }

  open_outputs();
  const std::string history = "restarted from " + path + " at step " + std::to_string(ck.step) + " by " +
                              build_provenance();
  bool new_series_file = false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    StreamOutput* stream = streams_[i].get();
    const OutputStream& o = stream->config();
    const int saved = continuations[i].saved;
    auto saved_key = [&](const std::string& base) { return stream_checkpoint_key(base, saved); };
    stream->schedule() = Schedule(o.interval, o.interval_steps, ck.time);
    if (saved < 0) {
      // A new file, whose first record is the state at the restart.
      agree([&] { stream->open(sim_->grid().whole().layout, series_info()); });
      agree([&] { stream->begin_averaging(*sim_); });
      stream->write_record(*sim_);  // an averaged stream's window opens at the restart
      new_series_file = new_series_file || o.diagnostics;
      spdlog::info("restart from {} at step {}, t = {:.6g}: new output {}", path, ck.step, ck.time, o.file);
    } else {
      if (o.interval && ck.state.count(saved_key("output_interval")) &&
          ck.state.at(saved_key("output_interval")) == *o.interval)
        stream->schedule().set_next_time(state_value(ck, saved_key("output_next_time").c_str()));
      if (state_value(ck, saved_key("snapshot_at_step").c_str()) != 0) stream->last_step = ck.step;
      // The same file: continue it. Its records up to the checkpoint are copied into this
      // run's partial; the rest is written again as the run goes on.
      const std::string& source = continuations[i].source;
      const long records = saved == 0 ? long(ck.output_records) : long(state_value(ck, saved_key("output_records").c_str()));
      const bool saved_series = ck.state.count(saved_key("output_diagnostics"))
                                    ? ck.state.at(saved_key("output_diagnostics")) != 0
                                    : saved == 0;
      const long series_records = o.diagnostics && saved_series ? long(ck.series_records) : 0;
      agree([&] {
        stream->open(sim_->grid().whole().layout, series_info());
        stream->copy_records_from(source, records, series_records);
        stream->begin_averaging(*sim_);
      });
      if (stream->average() && !stream->average()->restore(ck, saved_key))
        spdlog::warn("{} holds no time averages of {} as this case asks for them (written by a run that did not "
                     "average this stream so): its next record averages from the restart, t = {:.6g}",
                     path, o.file, ck.time);
      stream->superseded_partial = continuations[i].superseded_partial;
      spdlog::info("restart from {} at step {}, t = {:.6g}: continuing {} ({} records, {} diagnostics records "
                   "kept from {})", path, ck.step, ck.time, o.file, records, series_records, source);
    }
    agree([&] { stream->append_history(history); });
  }
  watch_step_starts();
  // A new file that holds the series starts it with the state at the restart.
  if (control_.series && new_series_file) record_series();
}

// The averaged streams sample the state each step starts from.
void Run::watch_step_starts() {
  bool averages = false;
  for (auto& s : streams_) averages = averages || s->average();
  if (averages)
    sim_->at_step_start([this] {
      for (auto& s : streams_) s->at_step_start(*sim_);
    });
}

std::vector<DiagnosticInfo> Run::series_info() const {
  std::vector<DiagnosticInfo> info;
  for (const FlowDiagnostic& d : flow_diagnostics()) info.push_back(d.info);
  for (const auto& c : case_diagnostics_) info.insert(info.end(), c->info().begin(), c->info().end());
  return info;
}

void Run::record_series() {
  std::map<std::string, double> extra;
  for (auto& c : case_diagnostics_) c->record(*sim_, extra);
  const auto values = series_.record(sim_->time(), sim_->diagnostics(), sim_->last_dt(), sim_->last_solve().cycles,
                                     sim_->has_plates(), extra);
  series_step_ = sim_->steps_done();
  if (series_output_) series_output_->write_series(sim_->time(), values);
}

// Counts the checked solves that failed in a row. A solve of fixed passes between checks
// (pressure.check_interval) measures nothing and neither counts nor resets the count: with
// checks every 10 steps, max_failures failed checks in a row end the run.
void Run::account_pressure_solve() {
  const SolveStats& s = sim_->last_solve();
  if (!s.checked) return;
  if (s.converged) {
    pressure_failures_ = 0;
    return;
  }
  ++pressure_failures_;
  const double reached = s.residual_history.empty() ? NAN : s.residual_history.back();
  // A solver may count several iterations per pressure.max_cycles (line_pcg).
  const PressurePlan& plan = sim_->pressure_plan();
  const int per_cycle = plan.type().iterations_per_cycle();
  const std::string stopped_at =
      per_cycle > 1 ? fmt::format("{} iterations ({} takes {} per pressure.max_cycles = {})", s.cycles, plan.name(),
                                  per_cycle, case_.pressure.max_cycles)
                    : fmt::format("pressure.max_cycles = {}", case_.pressure.max_cycles);
  const std::string what =
      s.stalled ? fmt::format("step {}: the pressure solve stalled after {} {} at a relative residual of {:.3e} > "
                              "pressure.tolerance = {:g}: the round-off floor of {} precision for this flow",
                              sim_->steps_done(), s.cycles, per_cycle > 1 ? "iterations" : "cycles", reached,
                              case_.pressure.tolerance, type_name(sim_->precision()))
                : fmt::format("step {}: the pressure solve stopped at {} with a relative residual of {:.3e} > "
                              "pressure.tolerance = {:g}",
                              sim_->steps_done(), stopped_at, reached, case_.pressure.tolerance);
  const bool single = sim_->precision() == Precision::single_precision;
  const std::string remedy =
      s.stalled ? fmt::format("raise pressure.tolerance above {:.1e}{}", reached,
                              single ? " or run in double (\"precision\": \"double\")" : "")
                : "raise pressure.max_cycles or loosen pressure.tolerance";
  const bool every_step = sim_->solve_check_interval() <= 1;
  const std::string count = every_step ? "solves in a row" : "checked solves in a row";
  if (pressure_failures_ >= case_.pressure.max_failures)
    throw std::runtime_error(what + " (" + std::to_string(pressure_failures_) + " " + count +
                             ", pressure.max_failures): " + remedy);
  spdlog::warn("{} ({} of {} allowed {}{})", what, pressure_failures_, case_.pressure.max_failures, count,
               every_step ? "" : fmt::format(", checked every {} steps", sim_->solve_check_interval()));
}

bool Run::step() {
  if (!started_) start();
  // A write that failed in the background stops the run here (every rank: the writer's
  // failure is agreed on).
  agree([] { IoThread::instance().check(); });
  const auto t0 = clock::now();
  if (case_.time.land_on_outputs) sim_->land_at(next_output_time());
  sim_->step();
  account_pressure_solve();
  for (auto& c : case_diagnostics_) c->advance(*sim_);
  const std::int64_t step = sim_->steps_done();
  if (control_.series && step % case_.output.diagnostics_interval_steps == 0) record_series();
  for (auto& s : streams_)
    if (s->schedule().due(sim_->time(), step)) s->write_record(*sim_);
  // What each rank's clock and signals say, agreed on by every rank (one reduction), so that
  // the ranks checkpoint, report and stop at the same step.
  enum : unsigned { checkpoint_asked = 1, progress_due = 2, signal_stop = 4, wall_stop = 8 };
  unsigned flags = 0;
  if (control_.signals && stop_signals::take_checkpoint_request()) flags |= checkpoint_asked;
  if (control_.progress_seconds &&
      std::chrono::duration<double>(clock::now() - last_progress_).count() >= *control_.progress_seconds)
    flags |= progress_due;
  if (control_.signals && stop_signals::stop_requested()) flags |= signal_stop;
  if (wall_limit_near()) flags |= wall_stop;
  flags = backend_.ranks().any_bits(flags);
  if (checkpoints_.due(sim_->time(), step) || (flags & checkpoint_asked)) write_checkpoint();
  slowest_step_ = std::max(slowest_step_, std::chrono::duration<double>(clock::now() - t0).count());
  if (control_.after_step) control_.after_step(*this);
  if (flags & progress_due) report_progress();

  if (sim_->finished()) {
    end_ = RunEnd::finished;
    return false;
  }
  if (flags & signal_stop) {
    stop_signal_ = stop_signals::stop_requested();
    if (!stop_signal_) stop_signal_ = 15;  // another rank's: SIGTERM reached it first
    end_ = RunEnd::signal;
    return false;
  }
  if (flags & wall_stop) {
    end_ = RunEnd::wall_limit;
    return false;
  }
  if (stop_) {
    end_ = RunEnd::caller;
    return false;
  }
  return true;
}

// The next time a stream's record or a checkpoint is due by time (infinite: none).
double Run::next_output_time() const {
  double t = checkpoints_.next_time();
  for (const auto& s : streams_) t = std::min(t, s->schedule().next_time());
  return t;
}

// Time for one more step and a checkpoint must remain: twice the slowest step, the slowest
// checkpoint so far (or the estimate of one at 100 MB/s before any), and 5 s for closing.
bool Run::wall_limit_near() const {
  if (!control_.wall_limit_seconds) return false;
  const double estimate = double(sim_->state_names().size() * sim_->grid().layout.cells()) * sizeof(double) / 100e6;
  const double slowest = slowest_checkpoint_.load(), checkpoint = slowest > 0 ? slowest : estimate;
  return elapsed_seconds() + 2 * slowest_step_ + checkpoint + 5 >= *control_.wall_limit_seconds;
}

std::string Run::write_checkpoint() {
  sim_->verify_state();  // never save a blown-up state
  const auto t0 = clock::now();
  Checkpoint ck;
  ck.provenance = build_provenance();
  ck.case_json = case_.json_text;
  ck.case_source = case_.source;
  ck.text[checkpoint_run_id_key] = run_id_;
  ck.text[checkpoint_solver_key] = sim_->pressure_plan().name();
  ck.n = case_.n;
  ck.time = sim_->time();
  ck.last_dt = sim_->last_dt();
  ck.step = sim_->steps_done();
  // The checkpoint's staggering: -1 for cell centres, else the axis of the faces. Under
  // several ranks each rank's own points, written by every rank into the one file where the
  // build can (parallel NetCDF), else the whole arrays, gathered onto rank 0, which writes.
  const Communicator& ranks = backend_.ranks();
  const bool by_block = ranks_write_one_file(ranks);
  CheckpointBlock supplied;
  supplied.n = case_.n;
  for (int s = 0; by_block && s < 4; ++s)
    supplied.boxes[std::size_t(s)] = supplied_box_in_whole(sim_->grid(), Stagger(s));
  for (const std::string& name : sim_->state_names()) {
    const Stagger st = field_named(name).stagger;
    ck.arrays.push_back({name, int(st) - 1,
                         by_block ? sim_->host_values(name, supplied_box(sim_->grid(), st))
                                  : gather_interior(sim_->host_values(name), st, sim_->grid(), ranks, 0),
                         Box{}});
  }
  ck.state = series_.state();
  for (auto& c : case_diagnostics_)
    for (const auto& [key, value] : c->state()) ck.state[key] = value;
  ck.state["pressure_failures"] = pressure_failures_;
  ck.state["pressure_cycles"] = sim_->last_solve().cycles;
  ck.state["series_at_step"] = series_step_ == ck.step;
  if (const auto& from = case_.initial.from) {  // the outputs' provenance, for a restart's new files
    ck.state["initial_record"] = double(from->source_record);
    ck.state["initial_time"] = from->source_time;
  }
  const std::string path = checkpoint_path(checkpoint_stem(), ck.step);
  // Each stream's schedule and files, under "KEY" for the first stream, "KEY.N" for the others.
  for (auto& s : streams_) {
    ck.state[s->key("snapshot_at_step")] = s->last_step == ck.step;
    ck.state[s->key("output_diagnostics")] = s->config().diagnostics;
    if (s->config().interval) {
      ck.state[s->key("output_interval")] = *s->config().interval;
      ck.state[s->key("output_next_time")] = s->schedule().next_time();
    }
    if (s->average()) s->average()->save(ck, [&](const std::string& base) { return s->key(base); }, by_block);
    ck.text[s->key("output_path")] = absolute_path(s->file());
    ck.text[s->key("output_partial")] = absolute_path(s->partial());
    ck.text[s->key("output_file")] = relative_to_checkpoint(s->file(), path);
    ck.text[s->key("partial_file")] = relative_to_checkpoint(s->partial(), path);
  }
  if (case_.checkpoint.interval) {
    ck.state["checkpoint_interval"] = *case_.checkpoint.interval;
    ck.state["checkpoint_next_time"] = checkpoints_.next_time();
  }
  checkpoint_step_ = ck.step;
  last_checkpoint_ = path;
  // Keep the last `keep` checkpoints this run wrote; never remove one it did not write.
  std::vector<std::string> remove;
  written_checkpoints_.erase(std::remove(written_checkpoints_.begin(), written_checkpoints_.end(), path),
                             written_checkpoints_.end());
  written_checkpoints_.push_back(path);
  while (int(written_checkpoints_.size()) > case_.checkpoint.keep) {
    remove.push_back(written_checkpoints_.front());
    written_checkpoints_.erase(written_checkpoints_.begin());
  }
  if (!by_block && ranks.rank() != 0) return path;  // the writer rank writes it
  // Written by the IO thread after every record queued before it, whose counts it takes
  // there; the run goes on meanwhile (where the ranks write it together, their IO threads'
  // collective calls go on their own communicator, and a failure, which every rank's writer
  // meets at once, reaches the ranks at the next step's agreed check). One checkpoint at a
  // time in memory.
  if (checkpoint_pending_) IoThread::instance().drain();
  checkpoint_pending_ = true;
  const auto posted = clock::now();  // the arrays copied off the device
  auto job = [this, ck = std::move(ck), path, remove, t0, posted, by_block, supplied, &ranks = ranks.io()]() mutable {
    const auto began = clock::now();
    // The record counts at this point of the queue: the first stream's in the checkpoint's
    // own field, the others' as state; the series' from the stream that holds it.
    for (auto& s : streams_) {
      const auto [records, series] = s->counts();
      if (s->index() == 0) ck.output_records = records;
      else ck.state[s->key("output_records")] = double(records);
      if (s->config().diagnostics) ck.series_records = series;
    }
    const std::int64_t step = ck.step;
    const double time = ck.time;
    CheckpointTimes times;
    if (by_block) bouss::write_checkpoint(path, std::move(ck), supplied, ranks, &times);  // its arrays, not a copy
    else bouss::write_checkpoint(path, ck, &times);
    const auto seconds_between = [](clock::time_point a, clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    const double seconds = seconds_between(t0, clock::now());
    slowest_checkpoint_ = std::max(slowest_checkpoint_.load(), seconds);
    checkpoint_pending_ = false;
    if (ranks.rank() != 0) return;
    for (const std::string& old : remove) std::remove(old.c_str());
    // Where the time went: the copies off the device (the time loop's), the queue behind
    // the records before it, the checks, the writes into the file, the disk.
    spdlog::info("checkpoint {} (step {}, t = {:.6g}; {}, {:.2f} s: copies {:.2f}, queued {:.2f}, checks {:.2f}, "
                 "writes {:.2f}, disk {:.2f}{})",
                 path, step, time, format_bytes(double(fs::file_size(path))), seconds, seconds_between(t0, posted),
                 seconds_between(posted, began), times.checks, times.write, times.sync,
                 by_block ? "; every rank its block" : "");
  };
  IoThread::instance().post(std::move(job), by_block ? IoThread::Failure::kept : IoThread::Failure::rethrow);
  return path;
}

void Run::report_progress() {
  last_progress_ = clock::now();
  progress_step_ = sim_->steps_done();
  if (control_.progress) {
    control_.progress(*this);
    return;
  }
  const Diagnostics d = series_step_ == sim_->steps_done() ? series_.latest() : sim_->diagnostics();
  // The ETA from this run's own pace (a restarted run began part of the way through).
  const double elapsed = elapsed_seconds(), done = progress_fraction(*sim_) - first_fraction_,
               left = 1 - progress_fraction(*sim_);
  // Every number with its label; the growth rate once two records define it.
  std::string extra;
  if (std::isfinite(series_.growth_rate())) extra = fmt::format("  sigma {:.4g}", series_.growth_rate());
  if (sim_->has_plates()) {
    extra += fmt::format("  Nu bottom {:.4f} top {:.4f} volume {:.4f}", d.nusselt.bottom, d.nusselt.top, d.nusselt.volume);
    // The spread of the five estimates, (max - min) / mean, where the exact relations apply.
    const double all[] = {d.nusselt.bottom, d.nusselt.top, d.nusselt.volume, d.nusselt.kinetic_dissipation,
                          d.nusselt.thermal_dissipation};
    if (std::isfinite(d.nusselt.kinetic_dissipation) && std::isfinite(d.nusselt.thermal_dissipation)) {
      const auto [lo, hi] = std::minmax_element(std::begin(all), std::end(all));
      double mean = 0;
      for (double v : all) mean += v / 5;
      extra += fmt::format(" spread {:.2g}%", 100 * (*hi - *lo) / std::fabs(mean));
    }
  }
  for (const auto& c : case_diagnostics_) extra += c->progress(*sim_);
  const PressurePlan& plan = sim_->pressure_plan();
  spdlog::info("step {:>7}  t {:.5g}  dt {:.3e}  ETA {}  | {} {} {}  max|div u| {:.1e}  KE {:.4e}{}", sim_->steps_done(),
               sim_->time(), sim_->last_dt(), clock_text(done > 0 ? elapsed * left / done : NAN), plan.name(),
               plan.type().iteration_unit(), sim_->last_solve().cycles, d.max_divergence, d.kinetic_energy, extra);
}

RunEnd Run::finish() {
  if (finished_) return end_;
  finished_ = true;
  sim_->verify_state();
  const std::int64_t step = sim_->steps_done();
  const bool early = end_ == RunEnd::signal || end_ == RunEnd::wall_limit;
  if ((early || case_.checkpoint.enabled()) && checkpoint_step_ != step) write_checkpoint();
  if (control_.series && series_step_ != step) record_series();
  for (auto& s : streams_)
    if (s->last_step != step) s->write_record(*sim_);
  if (control_.progress_seconds && progress_step_ != step) report_progress();
  IoThread::instance().drain();  // the checkpoint and every record are written
  for (auto& s : streams_) {
    const auto [records, series] = s->close();
    if (s->config().diagnostics)
      spdlog::info("wrote {} ({} records, {} diagnostics records, t = 0 .. {:.5g})", s->file(), records, series,
                   sim_->time());
    else
      spdlog::info("wrote {} ({} records, t = 0 .. {:.5g})", s->file(), records, sim_->time());
    // ParaView opens the .nc itself with its CAM reader, which shows an empty grid.
    if (!s->xdmf().empty()) spdlog::info("  for ParaView: open {} (the XDMF reader), not the .nc", s->xdmf());
    if (!s->superseded_partial.empty() && path_kind(s->superseded_partial) == PathKind::regular) {
      std::remove(s->superseded_partial.c_str());
      spdlog::info("removed {}, which the restarted output replaces", s->superseded_partial);
    }
  }
  return end_;
}

RunEnd Run::execute() {
  if (!started_) start();
  while (step()) {
  }
  return finish();
}

void Run::flush_output() {
  for (auto& s : streams_) s->flush_to_disk();
  IoThread::instance().drain();
}

std::string Run::restart_hint() const {
  // A checkpoint that exists: one whose write failed is never named.
  if (last_checkpoint_.empty() || path_kind(last_checkpoint_) != PathKind::regular) return "";
  std::string command = control_.restart_command;
  const auto at = command.find("{}");
  if (at == std::string::npos) return "continue with --restart " + last_checkpoint_;
  return "continue with: " + command.replace(at, 2, last_checkpoint_);
}

}  // namespace bouss
