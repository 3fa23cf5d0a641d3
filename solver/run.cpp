#include "solver/run.hpp"

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
#include "io/netcdf_writer.hpp"
#include "io/restart_compatibility.hpp"
#include "io/xdmf.hpp"
#include "solver/stop_signals.hpp"

namespace bouss {

namespace fs = std::filesystem;

namespace {

std::string absolute(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// Fraction of the run done, by steps or by time, whichever ends it first.
double progress_fraction(const Simulation& sim) {
  const Case& c = sim.config();
  double f = 0;
  if (c.time.steps) f = std::max(f, double(sim.steps_done()) / double(*c.time.steps));
  if (c.time.end) f = std::max(f, sim.time() / *c.time.end);
  return std::min(f, 1.0);
}

double state_value(const Checkpoint& ck, const char* key) {
  auto it = ck.state.find(key);
  if (it == ck.state.end()) throw std::runtime_error("checkpoint state lacks " + std::string(key));
  return it->second;
}

}  // namespace

Run::Run(const Case& c, const Backend& backend, RunControl control)
    : case_(c), backend_(backend), control_(std::move(control)) {}

// Every job queued for this run (snapshot slabs reading the staging ring, checkpoints) has
// run, or been skipped after a failure, before the ring and the writer go.
Run::~Run() { IoThread::instance().cleanup([] {}); }

double Run::elapsed_seconds() const { return std::chrono::duration<double>(clock::now() - start_time_).count(); }

std::string Run::output_partial() const { return partial_; }

std::string Run::checkpoint_stem() const {
  if (!case_.checkpoint.file.empty()) return case_.checkpoint.file;
  const std::string& out = case_.output.file;
  if (out.size() > 3 && out.compare(out.size() - 3, 3, ".nc") == 0) return out.substr(0, out.size() - 3);
  return out;
}

void Run::start() {
  if (started_) throw std::logic_error("Run::start called twice");
  started_ = true;
  start_time_ = last_progress_ = clock::now();
  if (control_.signals) stop_signals::install();
  IoThread::instance().clear_failure();  // a failure of an earlier run in this process was reported there
  if (control_.restart) start_from_checkpoint();
  else start_fresh();
  first_step_ = sim_->steps_done();
  first_fraction_ = progress_fraction(*sim_);
  if (writer_)
    stop_signals::set_abort_message("bouss: second signal: stopped at once; the output so far is in " + partial_ +
                                    " (up to its last flush)");
}

// Refusals that need no allocation: memory, then the output and checkpoint paths.
namespace {
void refuse_early(const Case& c, const Backend& backend, const std::string& checkpoint_stem) {
  check_memory(c, backend);
  try {
    if (!c.output.file.empty()) check_output_writable(c.output.file);
    if (c.checkpoint.enabled()) check_output_writable(checkpoint_path(checkpoint_stem, 0));
  } catch (const CaseError&) {
    throw;
  } catch (const std::exception& e) {
    throw CaseError(e.what());
  }
}
}  // namespace

void Run::start_fresh() {
  refuse_early(case_, backend_, checkpoint_stem());
  sim_ = std::make_unique<Simulation>(case_, backend_);
  snapshots_ = Schedule(case_.output.interval, case_.output.interval_steps);
  checkpoints_ = Schedule(case_.checkpoint.interval, case_.checkpoint.interval_steps);
  if (!case_.output.file.empty()) {
    open_output();
    write_snapshot();
  }
  if (control_.series) record_series();
}

// The writer on the IO thread, and the staging of its snapshots: each field goes in slabs of
// whole HDF5 chunks; the slots hold the largest slab.
void Run::open_output() {
  writer_.emplace(case_.output.file, case_);
  partial_ = writer_.call([](NetcdfWriter& w) { return w.partial_path(); });
  snapshot_plan_.clear();
  std::size_t slot = 0;
  double record = 0;
  for (const std::string& name : case_.output.fields) {
    SnapshotPlan p;
    p.field = name;
    const Field<Real>& f = sim_->field(name);
    p.box = f.layout().interior(f.stagger());
    const auto [plane, chunk] =
        writer_.call([&](NetcdfWriter& w) { return std::make_pair(w.plane_bytes(name), w.chunk_planes(name)); });
    p.plane_bytes = plane;
    p.slab_planes = staging_slab_planes(plane, chunk, p.box.extent(2));
    slot = std::max(slot, plane * std::size_t(p.slab_planes));
    record += double(plane) * p.box.extent(2);
    snapshot_plan_.push_back(p);
  }
  ring_ = std::make_unique<StagingRing>(backend_, slot, staging_slot_count(slot, record));
}

void Run::start_from_checkpoint() {
  const std::string& path = *control_.restart;
  Checkpoint ck;
  try {
    ck = IoThread::instance().call([&] { return read_checkpoint(path); });
  } catch (const std::exception& e) {
    throw CaseError(e.what());
  }
  const Case saved = parse_case(ck.case_json, path + " (its case)");
  const std::vector<std::string> differences = restart_differences(saved, case_);
  if (!differences.empty()) {
    std::string more = differences.size() > 1 ? " (and " + std::to_string(differences.size() - 1) + " more)" : "";
    throw CaseError(path + ": cannot continue " + case_.source + " from this checkpoint: " + differences.front() + more);
  }
  const bool past_steps = case_.time.steps && ck.step >= *case_.time.steps;
  const bool past_end = case_.time.end && ck.time >= *case_.time.end * (1 - 1e-14);
  if (past_steps || past_end)
    throw CaseError(case_.source + ": /time: the checkpoint " + path + " is at step " + std::to_string(ck.step) +
                    ", t = " + fmt::format("{:.6g}", ck.time) + ", where the case already ends: raise " +
                    (past_steps ? "time.steps" : "time.end") + " to continue");
  refuse_early(case_, backend_, checkpoint_stem());

  sim_ = std::make_unique<Simulation>(case_, backend_);
  std::vector<std::pair<std::string, std::vector<double>>> arrays;
  for (CheckpointArray& a : ck.arrays) arrays.emplace_back(a.name, std::move(a.values));
  sim_->restore(arrays, ck.time, ck.last_dt, long(ck.step), int(state_value(ck, "pressure_cycles")));
  series_.restore(ck.state);
  pressure_failures_ = int(state_value(ck, "pressure_failures"));
  snapshot_step_ = state_value(ck, "snapshot_at_step") != 0 ? ck.step : -1;
  series_step_ = state_value(ck, "series_at_step") != 0 ? ck.step : -1;
  checkpoint_step_ = ck.step;  // this state is saved already
  // Schedules: their stored next times continue bit for bit when the interval is the same.
  snapshots_ = Schedule(case_.output.interval, case_.output.interval_steps, ck.time);
  if (case_.output.interval && ck.state.count("output_interval") && ck.state.at("output_interval") == *case_.output.interval)
    snapshots_.set_next_time(state_value(ck, "output_next_time"));
  checkpoints_ = Schedule(case_.checkpoint.interval, case_.checkpoint.interval_steps, ck.time);
  if (case_.checkpoint.interval && ck.state.count("checkpoint_interval") &&
      ck.state.at("checkpoint_interval") == *case_.checkpoint.interval)
    checkpoints_.set_next_time(state_value(ck, "checkpoint_next_time"));

  if (case_.output.file.empty()) return;
  const std::string saved_output = ck.text.count("output_path") ? ck.text.at("output_path") : "";
  if (!saved_output.empty() && absolute(case_.output.file) == saved_output) {
    // The same file: continue it. Its records up to the checkpoint are copied from the file
    // the checkpointing run was writing (its partial, if the run was killed, else the
    // finished file) into this run's partial; the rest is written again as the run goes on.
    // (Which one, is decided before this run creates its own partial, which may reuse the name.)
    const std::string saved_partial = ck.text.count("output_partial") ? ck.text.at("output_partial") : "";
    const bool from_partial = !saved_partial.empty() && path_kind(saved_partial) == PathKind::regular;
    const std::string source = from_partial ? saved_partial : case_.output.file;
    open_output();
    writer_.call([&](NetcdfWriter& w) { w.copy_records_from(source, long(ck.output_records), long(ck.series_records)); });
    if (from_partial) superseded_partial_ = saved_partial;
    spdlog::info("restart from {} at step {}, t = {:.6g}: continuing {} ({} snapshots, {} diagnostics records "
                 "kept from {})", path, ck.step, ck.time, case_.output.file, ck.output_records, ck.series_records,
                 source);
  } else {
    // A new file, whose first record is the state at the restart.
    open_output();
    write_snapshot();
    if (control_.series) record_series();
    spdlog::info("restart from {} at step {}, t = {:.6g}: new output {}", path, ck.step, ck.time, case_.output.file);
  }
  const std::string history = "restarted from " + path + " at step " + std::to_string(ck.step) + " by " +
                              build_provenance();
  writer_.call([&](NetcdfWriter& w) { w.append_history(history); });
}

void Run::record_series() {
  const Diagnostics d = sim_->diagnostics();
  const auto values = series_.record(sim_->time(), d, sim_->last_dt(), sim_->last_solve().cycles, sim_->has_plates());
  series_step_ = sim_->steps_done();
  if (writer_) writer_.post([time = sim_->time(), values](NetcdfWriter& w) { w.write_series(time, values); });
}

// Asynchronous: each slab is packed on the device in the output precision, copied to a pinned
// slot on the copy stream and written by the IO thread; the next step's kernels, queued after
// the pack kernels, may overwrite the fields at once. No device sync here.
void Run::write_snapshot() {
  const bool single = case_.output.precision == "float";
  const double time = sim_->time();
  writer_.post([time, step = sim_->steps_done()](NetcdfWriter& w) { w.begin_record(time, {{"step", double(step)}}); });
  for (const SnapshotPlan& p : snapshot_plan_) {
    const Field<Real>& f = sim_->field(p.field);
    for (int k0 = 0; k0 < p.box.extent(2); k0 += p.slab_planes) {
      const int nk = std::min(p.slab_planes, p.box.extent(2) - k0);
      Box slab = p.box;
      slab.lo[2] = k0;
      slab.hi[2] = k0 + nk;
      StagingRing::Slot& slot = ring_->acquire();
      if (single) pack_box(f, slab, static_cast<float*>(slot.device));
      else pack_box(f, slab, static_cast<double*>(slot.device));
      const std::size_t bytes = p.plane_bytes * std::size_t(nk);
      ring_->queue_copy(slot, bytes);
      StagingRing* ring = ring_.get();
      writer_.post([&slot, ring, bytes, k0, nk, field = p.field](NetcdfWriter& w) {
        slot.copied.wait();
        try {
          w.write_slab(field, k0, nk, slot.host);
        } catch (...) {
          ring->release(slot, 0);
          throw;
        }
        ring->release(slot, bytes);
      });
    }
  }
  writer_.post([](NetcdfWriter& w) { w.end_record(); });
  snapshot_step_ = sim_->steps_done();
}

void Run::account_pressure_solve() {
  const SolveStats& s = sim_->last_solve();
  if (s.converged) {
    pressure_failures_ = 0;
    return;
  }
  ++pressure_failures_;
  const double reached = s.residual_history.empty() ? NAN : s.residual_history.back();
  const std::string what = fmt::format("step {}: the pressure solve stopped at pressure.max_cycles = {} with a "
                                       "relative residual of {:.3e} > pressure.tolerance = {:g}",
                                       sim_->steps_done(), s.cycles, reached, case_.pressure.tolerance);
  if (pressure_failures_ >= case_.pressure.max_failures)
    throw std::runtime_error(what + " (" + std::to_string(pressure_failures_) +
                             " solves in a row, pressure.max_failures): raise pressure.max_cycles or loosen "
                             "pressure.tolerance");
  spdlog::warn("{} ({} of {} allowed in a row)", what, pressure_failures_, case_.pressure.max_failures);
}

bool Run::step() {
  if (!started_) start();
  IoThread::instance().check();  // a write that failed in the background stops the run here
  const auto t0 = clock::now();
  sim_->step();
  account_pressure_solve();
  const std::int64_t step = sim_->steps_done();
  if (control_.series && step % case_.output.diagnostics_interval_steps == 0) record_series();
  if (writer_ && snapshots_.due(sim_->time(), step)) write_snapshot();
  bool checkpoint = checkpoints_.due(sim_->time(), step);
  if (control_.signals && stop_signals::take_checkpoint_request()) checkpoint = true;
  if (checkpoint) write_checkpoint();
  slowest_step_ = std::max(slowest_step_, std::chrono::duration<double>(clock::now() - t0).count());
  if (control_.after_step) control_.after_step(*this);
  if (control_.progress_seconds &&
      std::chrono::duration<double>(clock::now() - last_progress_).count() >= *control_.progress_seconds)
    report_progress();

  if (sim_->finished()) {
    end_ = RunEnd::finished;
    return false;
  }
  if (control_.signals && stop_signals::stop_requested()) {
    stop_signal_ = stop_signals::stop_requested();
    end_ = RunEnd::signal;
    return false;
  }
  if (wall_limit_near()) {
    end_ = RunEnd::wall_limit;
    return false;
  }
  if (stop_) {
    end_ = RunEnd::caller;
    return false;
  }
  return true;
}

// Time for one more step and a checkpoint must remain: twice the slowest step, the slowest
// checkpoint so far (or the estimate of one at 100 MB/s before any), and 5 s for closing.
bool Run::wall_limit_near() const {
  if (!control_.wall_limit_seconds) return false;
  const double estimate = double(Simulation::state_names().size() * sim_->grid().layout.cells()) * sizeof(double) / 100e6;
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
  ck.n = case_.n;
  ck.time = sim_->time();
  ck.last_dt = sim_->last_dt();
  ck.step = sim_->steps_done();
  // The checkpoint's staggering: -1 for cell centres, else the axis of the faces.
  for (const std::string& name : Simulation::state_names())
    ck.arrays.push_back({name, int(sim_->field(name).stagger()) - 1, sim_->host_values(name)});
  ck.state = series_.state();
  ck.state["pressure_failures"] = pressure_failures_;
  ck.state["pressure_cycles"] = sim_->last_solve().cycles;
  ck.state["snapshot_at_step"] = snapshot_step_ == ck.step;
  ck.state["series_at_step"] = series_step_ == ck.step;
  if (case_.output.interval) {
    ck.state["output_interval"] = *case_.output.interval;
    ck.state["output_next_time"] = snapshots_.next_time();
  }
  if (case_.checkpoint.interval) {
    ck.state["checkpoint_interval"] = *case_.checkpoint.interval;
    ck.state["checkpoint_next_time"] = checkpoints_.next_time();
  }
  if (writer_) {
    ck.text["output_path"] = absolute(case_.output.file);
    ck.text["output_partial"] = absolute(partial_);
  }
  const std::string path = checkpoint_path(checkpoint_stem(), ck.step);
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
  // Written by the IO thread after every record queued before it, whose counts it takes
  // there; the run goes on meanwhile. One checkpoint at a time in memory.
  if (checkpoint_pending_) IoThread::instance().drain();
  checkpoint_pending_ = true;
  auto job = [this, ck = std::move(ck), path, remove, t0]() mutable {
    if (writer_) writer_.call([&](NetcdfWriter& w) {
      ck.output_records = w.records();
      ck.series_records = w.series_records();
    });
    bouss::write_checkpoint(path, ck);
    for (const std::string& old : remove) std::remove(old.c_str());
    const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
    slowest_checkpoint_ = std::max(slowest_checkpoint_.load(), seconds);
    checkpoint_pending_ = false;
    spdlog::info("checkpoint {} (step {}, t = {:.6g}; {}, {:.2f} s)", path, ck.step, ck.time,
                 format_bytes(double(fs::file_size(path))), seconds);
  };
  IoThread::instance().post(std::move(job));
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
  std::string nusselt;
  if (sim_->has_plates()) nusselt = fmt::format("  Nu {:.4f} {:.4f} {:.4f}", d.nusselt.bottom, d.nusselt.top, d.nusselt.volume);
  spdlog::info("step {:>7}  t {:.5g}  dt {:.3e}  ETA {}  | mg {}  max|div u| {:.1e}  KE {:.4e}  sigma {:.4g}{}",
               sim_->steps_done(), sim_->time(), sim_->last_dt(), clock_text(done > 0 ? elapsed * left / done : NAN),
               sim_->last_solve().cycles, d.max_divergence, d.kinetic_energy, series_.growth_rate(), nusselt);
}

RunEnd Run::finish() {
  if (finished_) return end_;
  finished_ = true;
  sim_->verify_state();
  const std::int64_t step = sim_->steps_done();
  const bool early = end_ == RunEnd::signal || end_ == RunEnd::wall_limit;
  if ((early || case_.checkpoint.enabled()) && checkpoint_step_ != step) {
    if (!checkpoint_stem().empty()) write_checkpoint();
    else spdlog::warn("no checkpoint: the case has neither output.file nor checkpoint.file to name one after");
  }
  if (control_.series && series_step_ != step) record_series();
  if (writer_ && snapshot_step_ != step) write_snapshot();
  if (control_.progress_seconds && progress_step_ != step) report_progress();
  IoThread::instance().drain();  // the checkpoint and every record are written
  if (writer_) {
    const auto [records, series] = writer_.call([](NetcdfWriter& w) {
      w.close();
      return std::make_pair(w.records(), w.series_records());
    });
    spdlog::info("wrote {} ({} snapshots, {} diagnostics records, t = 0 .. {:.5g})", case_.output.file, records,
                 series, sim_->time());
    // Beside it, the XDMF description ParaView opens (the NetCDF file is complete without it).
    const std::string xdmf = xdmf_path_for(case_.output.file);
    try {
      IoThread::instance().call([&] { write_xdmf(case_.output.file, xdmf); });
    } catch (const std::exception& e) {
      spdlog::warn("no {}: {}", xdmf, e.what());
    }
    if (!superseded_partial_.empty() && path_kind(superseded_partial_) == PathKind::regular) {
      std::remove(superseded_partial_.c_str());
      spdlog::info("removed {}, which the restarted output replaces", superseded_partial_);
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
  if (writer_) writer_.call([](NetcdfWriter& w) { w.flush_to_disk(); });
  IoThread::instance().drain();
}

std::string Run::restart_hint() const {
  if (last_checkpoint_.empty()) return "";
  std::string command = control_.restart_command;
  const auto at = command.find("{}");
  if (at == std::string::npos) return "continue with --restart " + last_checkpoint_;
  return "continue with: " + command.replace(at, 2, last_checkpoint_);
}

}  // namespace bouss
