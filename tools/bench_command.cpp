// bouss bench: median ms per step after warm-up (CUDA events on the GPU), ns per cell,
// multigrid cycles per step, and the traffic model's bytes per step against the measured
// copy bandwidth of the same backend.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <memory>
#include <numeric>

#include "grid/field_ops.hpp"
#include "config/case.hpp"
#include "io/checkpoint.hpp"
#include "run/run.hpp"
#include "run/run_memory.hpp"
#include "grid/device_messages.hpp"
#include "parallel/rank_costs.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

// The checkpoint the timed steps start from: --from as given, the case's newest checkpoint
// for "latest" ("" when it has none), "" for "rest".
std::string bench_start(const BenchOptions& o, const Case& c) {
  if (o.from == "rest") return "";
  if (o.from != "latest") return o.from;
  const std::string stem = checkpoint_stem(c);
  return stem.empty() ? "" : latest_checkpoint(stem);
}

std::unique_ptr<Run> bench_run(const Case& c, const Backend& backend, const std::string& from) {
  RunControl control;
  control.progress_seconds.reset();
  control.series = false;  // the step alone is timed
  if (!from.empty()) {
    control.restart = from;
    control.restart_scope = RestartScope::flow_state;  // its flow, under this case's solver and precision
  }
  return std::make_unique<Run>(c, backend, control);
}

}  // namespace

int bench_command(const BenchOptions& o) {
  Case c;
  Backend backend;
  if (!load_command_case(o.case_file, o.overrides, o.backend, c, backend, o.decomposition)) return 2;
  configure_logging(o.json);
  if (!o.json) log_case_summary(c, backend);
  const std::string stem = checkpoint_stem(c);
  std::string from = bench_start(o, c);
  // Why a bench of "latest" times from rest (for the warning below).
  std::string why_rest = o.from == "latest" && from.empty() && !stem.empty() ? ", no checkpoint " + stem + ".checkpoint.*.nc" : "";
  c.output.streams.clear();  // a benchmark writes nothing
  c.time.steps.reset();  // the bench decides how many steps run
  c.time.end.reset();
  c.checkpoint = CheckpointParams{};
  std::unique_ptr<Run> run = bench_run(c, backend, from);
  try {
    run->start();
  } catch (const CaseError& e) {
    if (o.from != "latest" || from.empty()) return report_failure(e);
    // The case's own newest checkpoint holds another problem (a --set of the grid, say).
    spdlog::warn("not timing from {}: {}", from, e.what());
    from.clear();
    why_rest = ", the case's checkpoint holds another problem";
    run = bench_run(c, backend, from);
    if (const int refused = start_command_run(*run)) return refused;
  } catch (const std::exception& e) {
    return report_failure(e);
  }
  try {
    const Simulation& sim = run->simulation();
    if (!o.json) log_solver_summary(sim);
    const double start_time = sim.time();
    const long start_step = sim.steps_done();
    if (from.empty() && o.from == "rest")
      spdlog::info("timing from rest (t = 0), as asked");
    else if (from.empty())
      spdlog::warn("timing from rest (t = 0){}: the flow has not developed, and an iterative pressure solve takes fewer "
                   "cycles than it will; for developed flow make a checkpoint first (bouss run {} --set "
                   "time.steps=4000 --set checkpoint.interval_steps=4000) and bench again, or pass --from",
                   why_rest, o.case_file);
    else
      spdlog::info("timing from {}: its flow at step {}, t = {:.6g}, kinetic energy {:.6g}", from, start_step,
                   start_time, sim.kinetic_energy());
    for (int s = 0; s < o.warmup; ++s) run->step();
    const double timed_time = sim.time();
    const long timed_step = sim.steps_done();
    std::vector<double> ms;
    std::vector<int> cycles;
    double bytes = 0;
    RegionTimer timer(backend);
    rank_costs() = RankCosts{};
    for (int s = 0; s < o.steps; ++s) {
      timer.start();
      run->step();
      ms.push_back(timer.stop_ms());
      cycles.push_back(sim.last_solve().cycles);
      bytes += sim.bytes_per_step(sim.last_solve()) / o.steps;
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    const double mean_cycles = std::accumulate(cycles.begin(), cycles.end(), 0.0) / cycles.size();
    const double end_time = sim.time();
    const long end_step = sim.steps_done();
    const Diagnostics d = sim.diagnostics();
    // Under several ranks, what the cut cost each rank per step (parallel/rank_costs.hpp),
    // the smallest and largest over the ranks: from steps of their own after the timed ones,
    // where every exchange and transpose waits for its work to time it (the timed steps
    // leave NCCL's messages queued, as a run does).
    const Communicator& ranks = backend.ranks();
    const int cost_steps = ranks.alone() ? 1 : std::min(o.steps, 5);
    if (!ranks.alone()) {
      rank_costs() = RankCosts{};
      rank_costs().timed = true;
      for (int s = 0; s < cost_steps; ++s) run->step();
      rank_costs().timed = false;
    }
    struct PerStep {
      double halo_ms, halo_mb, messages, gathered_ms, transpose_ms, transpose_mb, pack_ms, reduction_ms, reductions;
    };
    const RankCosts& rc = rank_costs();
    const double n = cost_steps;
    const PerStep mine{1e3 * rc.halo_seconds / n,    1e-6 * rc.halo_bytes / n,
                       double(rc.halo_exchanges) / n, 1e3 * rc.gathered_solve_seconds / n,
                       1e3 * rc.transpose_seconds / n, 1e-6 * rc.transpose_bytes / n,
                       1e3 * rc.halo_pack_seconds / n, 1e3 * rc.reduction_seconds / n, double(rc.reductions) / n};
    std::vector<PerStep> every(ranks.size());
    ranks.allgather(&mine, every.data(), sizeof(PerStep));
    auto span = [&](double PerStep::*m) {
      double lo = every[0].*m, hi = lo;
      for (const PerStep& p : every) lo = std::min(lo, p.*m), hi = std::max(hi, p.*m);
      return std::make_pair(lo, hi);
    };
    const double cells = double(sim.grid().whole().layout.cells());  // every rank's
    const double effective = bytes / (median * 1e-3);
    // The ceiling: a copy of 1 GiB on the GPU (device memory); on the CPU a copy of the
    // run's own working set, since a small case's arrays stay in the caches, where a copy
    // of 256 MiB would run at memory speed and put the floor below what the step reaches.
    const double working_set = estimate_memory(c, backend).backend_bytes;
    const std::size_t copy_bytes = backend.is_cuda() ? std::size_t(1) << 30
                                                     : std::size_t(std::max(working_set, double(1 << 20)));
    const double copy_bw = measure_copy_bandwidth(backend, copy_bytes);
    const double floor_ms = bytes / copy_bw * 1e3;
    if (o.json) {
      nlohmann::json j = {{"case", c.name},
                          {"backend", backend.name()},
                          {"device", backend.describe()},
                          {"n", c.n},
                          {"from", from.empty() ? "rest" : from},
                          {"start_step", start_step},
                          {"start_time", start_time},
                          {"warmup_steps", o.warmup},
                          {"steps", o.steps},
                          {"timed_from_time", timed_time},
                          {"time", end_time},
                          {"ms_per_step", median},
                          {"ms_per_step_min", sorted.front()},
                          {"ms_per_step_max", sorted.back()},
                          {"ns_per_cell_step", median * 1e6 / cells},
                          {"mg_cycles_per_step", mean_cycles},
                          {"cycles_min", *std::min_element(cycles.begin(), cycles.end())},
                          {"cycles_max", *std::max_element(cycles.begin(), cycles.end())},
                          {"bytes_per_step", bytes},
                          {"effective_GBps", effective * 1e-9},
                          {"copy_bandwidth_GBps", copy_bw * 1e-9},
                          {"bandwidth_floor_ms", floor_ms},
                          {"fraction_of_floor", floor_ms / median},
                          {"step_graphs", sim.step_graphs()},
                          {"max_divergence", d.max_divergence},
                          {"kinetic_energy", d.kinetic_energy}};
      if (!ranks.alone()) {
        j["ranks"] = ranks.size();
        j["messages"] = message_path_name(message_path(backend));
        j["decomposition"] = decompose(c, ranks).describe();
        j["halo_ms_per_step_min"] = span(&PerStep::halo_ms).first;
        j["halo_ms_per_step_max"] = span(&PerStep::halo_ms).second;
        j["halo_pack_ms_per_step_max"] = span(&PerStep::pack_ms).second;
        j["reduction_ms_per_step_max"] = span(&PerStep::reduction_ms).second;
        j["reductions_per_step"] = span(&PerStep::reductions).second;
        j["halo_mb_per_step_max"] = span(&PerStep::halo_mb).second;
        j["halo_messages_per_step_max"] = span(&PerStep::messages).second;
        j["gathered_solve_ms_per_step_max"] = span(&PerStep::gathered_ms).second;
        j["transpose_ms_per_step_min"] = span(&PerStep::transpose_ms).first;
        j["transpose_ms_per_step_max"] = span(&PerStep::transpose_ms).second;
        j["transpose_mb_per_step_max"] = span(&PerStep::transpose_mb).second;
      }
      if (ranks.rank() == 0) std::printf("%s\n", j.dump(2).c_str());
    } else {
      spdlog::info("{} steps after {} warm-up: median {:.3f} ms/step (min {:.3f}, max {:.3f})", o.steps, o.warmup,
                   median, sorted.front(), sorted.back());
      spdlog::info("{:.3f} ns per cell per step, {:.2f} pressure cycles per step ({} to {})", median * 1e6 / cells,
                   mean_cycles, *std::min_element(cycles.begin(), cycles.end()),
                   *std::max_element(cycles.begin(), cycles.end()));
      spdlog::info("the state timed: steps {} to {} from {}, t = {:.6g} to {:.6g}, kinetic energy {:.6g} at the end, "
                   "max|div u| {:.2e}",
                   timed_step, end_step, from.empty() ? "rest" : from, timed_time, end_time,
                   d.kinetic_energy, d.max_divergence);
      if (!ranks.alone()) {
        const auto gathered = span(&PerStep::gathered_ms);
        spdlog::info("messages: {}; reductions and agreements {:.3f} to {:.3f} ms a step ({:.0f}); the step {}",
                     message_path_name(message_path(backend)), span(&PerStep::reduction_ms).first,
                     span(&PerStep::reduction_ms).second, span(&PerStep::reductions).second,
                     sim.step_graphs() > 0 ? "replayed as CUDA graphs" : "launched kernel by kernel");
        spdlog::info("each rank per step, from {} steps timed apart (smallest to largest over the {} ranks): halo "
                     "exchanges {:.3f} to {:.3f} ms (packing and unpacking {:.3f} to {:.3f} ms of it), {:.0f} messages, "
                     "{:.2f} MB sent{}",
                     cost_steps, ranks.size(), span(&PerStep::halo_ms).first, span(&PerStep::halo_ms).second,
                     span(&PerStep::pack_ms).first, span(&PerStep::pack_ms).second,
                     span(&PerStep::messages).second, span(&PerStep::halo_mb).second,
                     gathered.second > 0 ? fmt::format("; the pressure gathered onto rank 0 {:.3f} to {:.3f} ms",
                                                       gathered.first, gathered.second)
                     : span(&PerStep::transpose_ms).second > 0
                         ? fmt::format("; the Fourier solve's transposes {:.3f} to {:.3f} ms, {:.2f} MB sent",
                                       span(&PerStep::transpose_ms).first, span(&PerStep::transpose_ms).second,
                                       span(&PerStep::transpose_mb).second)
                         : std::string("; the pressure solved on the blocks"));
      }
      spdlog::info("traffic model{} {:.3f} GB/step -> effective {:.1f} GB/s; copy kernel {:.1f} GB/s -> floor {:.3f} "
                   "ms/step ({:.0f}% of it reached)",
                   sim.backend().ranks().alone() ? "" : " (rank 0's: its block, and the pressure levels or grid gathered onto it)",
                   bytes * 1e-9, effective * 1e-9, copy_bw * 1e-9, floor_ms, 100 * floor_ms / median);
    }
  } catch (const std::exception& e) {
    return report_failure(e);
  }
  return 0;
}

}  // namespace bouss
