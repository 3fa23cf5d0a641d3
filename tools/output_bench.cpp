// bouss bench CASE --output-every N[,M...]: what output costs the step. In one process, the
// same timed steps run with no output and with each configuration of snapshots (fields,
// precision, interval); every timed region ends with the output closed and fsynced, so the
// page cache cannot hide the disk. The disk's own rate is measured in the same folder by
// writing as many bytes with plain write() and fsync(); the writer's rate is the bytes over
// the time the IO thread spent writing. Each configuration is reported against its bound,
// the larger of the step without output and its bytes at the disk's rate.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/case.hpp"
#include "io/file_util.hpp"
#include "io/io_thread.hpp"
#include "io/xdmf.hpp"
#include "solver/run.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Plain write() of `bytes` in 16 MiB blocks and fsync(), into a file in `folder`: bytes/s.
double disk_rate(const std::string& folder, double bytes) {
  const std::string path = (fs::path(folder) / ("bouss_disk_rate." + std::to_string(::getpid()))).string();
  const std::size_t block = std::size_t(16) << 20;
  std::vector<char> data(block, 1);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("bench: cannot create " + path + " to measure the disk");
  const auto t0 = clock_type::now();
  for (double left = bytes; left > 0; left -= double(block)) {
    const std::size_t n = std::size_t(std::min(left, double(block)));
    if (::write(fd, data.data(), n) != ssize_t(n)) {
      ::close(fd);
      std::remove(path.c_str());
      throw std::runtime_error("bench: writing " + path + " failed (a full disk?)");
    }
  }
  ::fsync(fd);
  const double s = seconds_since(t0);
  ::close(fd);
  std::remove(path.c_str());
  return bytes / s;
}

struct Config {
  std::string name, fields, precision;
  int every = 0;  // 0: no output
};

struct Timing {
  double ms_per_step = 0, bytes = 0, writer_seconds = 0;
  long waits = 0;
};

// Bytes a configuration writes per step: its fields' interior values in its precision, every
// `every` steps.
double cfg_bytes_per_step(const Case& c, const Config& cfg) {
  if (cfg.every <= 0) return 0;
  const double elem = cfg.precision == "float" ? 4 : 8;
  const double cells = double(c.n[0]) * c.n[1] * c.n[2];
  auto field = [&](const std::string& name) {
    const int a = name == "u" ? 0 : name == "v" ? 1 : name == "w" ? 2 : -1;
    return a < 0 ? cells : cells / c.n[a] * (c.n[a] + 1);
  };
  double record = 0;
  if (cfg.fields == "all")
    for (const char* name : {"T", "u", "v", "w", "p"}) record += field(name);
  else
    record = field(cfg.fields);
  return record * elem / cfg.every;
}

// `steps` timed steps of the case after `warmup`, the output (if any) closed inside the
// timed region.
Timing time_config(Case c, const Backend& backend, const Config& cfg, const std::string& folder, int warmup,
                   int steps) {
  c.time.steps.reset();
  c.time.end.reset();
  c.checkpoint = CheckpointParams{};
  c.output.interval.reset();
  c.output.interval_steps.reset();
  std::string file;
  if (cfg.every > 0) {
    file = (fs::path(folder) / ("bouss_bench_" + cfg.name + ".nc")).string();
    c.output.file = file;
    c.output.interval_steps = cfg.every;
    c.output.precision = cfg.precision;
    c.output.fields = cfg.fields == "all" ? std::vector<std::string>{"T", "u", "v", "w", "p"}
                                          : std::vector<std::string>{cfg.fields};
  } else {
    c.output.file = "";
  }
  RunControl control;
  control.progress_seconds.reset();
  // Every configuration keeps the diagnostics series (a run computes it whether or not it
  // writes a file), so that the differences are the snapshots' alone.
  control.series = true;
  Run run(c, backend, control);
  run.start();
  for (int s = 0; s < warmup; ++s) run.step();
  run.flush_output();  // the warm-up's records on the disk before the clock starts
  backend.synchronize();
  const double busy0 = IoThread::instance().busy_seconds();
  const auto t0 = clock_type::now();
  for (int s = 0; s < steps; ++s) run.step();
  run.finish();  // the last record, the close and its fsync are inside the timed region
  backend.synchronize();
  Timing t;
  t.ms_per_step = 1e3 * seconds_since(t0) / steps;
  t.writer_seconds = IoThread::instance().busy_seconds() - busy0;
  if (!file.empty()) {
    t.bytes = cfg_bytes_per_step(c, cfg) * steps;  // the snapshots of the timed steps
    std::error_code ec;
    fs::remove(file, ec);
    fs::remove(xdmf_path_for(file), ec);
  }
  return t;
}

}  // namespace

int output_bench(const BenchOptions& o) {
  Case c;
  Backend backend;
  if (!load_command_case(o.case_file, o.overrides, o.backend, c, backend)) return 2;
  std::vector<Config> configs{{"none", "", "", 0}};
  try {
    for (int every : o.output_every)
      if (every < 1) throw CaseError("--output-every " + std::to_string(every) + ": expected steps >= 1");
    for (const auto& f : o.output_fields)
      if (f != "all" && f != "T" && f != "u" && f != "v" && f != "w" && f != "p")
        throw CaseError("--output-fields " + f + ": expected all, T, u, v, w or p");
    for (const auto& p : o.output_precision)
      if (p != "double" && p != "float") throw CaseError("--output-precision " + p + ": expected double or float");
    for (int every : o.output_every)
      for (const auto& f : o.output_fields)
        for (const auto& p : o.output_precision)
          configs.push_back({f + "_" + p + "_every" + std::to_string(every), f, p, every});
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  std::string folder = o.output_dir;
  if (folder.empty()) {
    folder = fs::path(c.output.file).parent_path().string();
    if (folder.empty()) folder = ".";
  }
  std::error_code ec;
  fs::create_directories(folder, ec);
  configure_logging(o.json);
  if (!o.json) {
    log_case_summary(c, backend);
    spdlog::info("output bench in {}: {} timed steps after {} each; every timed region ends with the file closed "
                 "and fsynced", folder, o.steps, o.warmup);
  }
  nlohmann::json rows = nlohmann::json::array();
  try {
    // Each configuration runs long enough for 20 of its snapshots, so that the close and
    // its fsync at the end are a small part of the timed region.
    auto steps_of = [&](const Config& cfg) { return std::max(o.steps, 20 * cfg.every); };
    double most = 0;
    for (const Config& cfg : configs)
      if (cfg.every > 0) most = std::max(most, cfg_bytes_per_step(c, cfg) * steps_of(cfg));
    // The disk's rate, once before (which also gets a fresh virtual disk past its first
    // writes) and once after the configurations; the faster of the two is the bound.
    const double disk_before = most > 0 ? disk_rate(folder, most) : 0;
    std::vector<Timing> timings;
    for (const Config& cfg : configs) timings.push_back(time_config(c, backend, cfg, folder, o.warmup, steps_of(cfg)));
    const double disk_after = most > 0 ? disk_rate(folder, most) : 0;
    const double disk = std::max(disk_before, disk_after);
    // The steps without output over the same steps as each configuration: from rest the flow
    // develops and the pressure solve takes more cycles, so a longer run costs more a step.
    std::map<int, double> none_ms;
    for (const Config& cfg : configs) {
      const int steps = steps_of(cfg);
      if (!none_ms.count(steps))
        none_ms[steps] = steps == steps_of(configs.front())
                             ? timings.front().ms_per_step
                             : time_config(c, backend, configs.front(), folder, o.warmup, steps).ms_per_step;
    }
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Config& cfg = configs[i];
      const Timing& t = timings[i];
      const double base = none_ms.at(steps_of(cfg));
      const double bytes_per_step = t.bytes / steps_of(cfg);
      const double disk_ms = disk > 0 ? 1e3 * bytes_per_step / disk : 0;
      const double bound = std::max(base, disk_ms);
      const double writer = t.writer_seconds > 0 ? t.bytes / t.writer_seconds : 0;
      rows.push_back({{"config", cfg.name},
                      {"no_output_ms_per_step", base},
                      {"fields", cfg.fields},
                      {"precision", cfg.precision},
                      {"every", cfg.every},
                      {"steps", steps_of(cfg)},
                      {"ms_per_step", t.ms_per_step},
                      {"bytes_per_step", bytes_per_step},
                      {"disk_ms_per_step", disk_ms},
                      {"bound_ms_per_step", bound},
                      {"over_bound", t.ms_per_step / bound - 1},
                      {"over_no_output", t.ms_per_step / base - 1},
                      {"writer_GBps", writer * 1e-9},
                      {"disk_GBps", disk * 1e-9},
                      {"disk_before_GBps", disk_before * 1e-9},
                      {"disk_after_GBps", disk_after * 1e-9}});
      if (!o.json)
        spdlog::info("{:>24}: {:8.3f} ms/step ({:+6.1f}% vs none; bound {:.3f} ms: {:+6.1f}%)  {:8.1f} MB/step  "
                     "writer {:.2f} GB/s, disk {:.2f} GB/s",
                     cfg.name, t.ms_per_step, 100 * (t.ms_per_step / base - 1), bound,
                     100 * (t.ms_per_step / bound - 1), bytes_per_step * 1e-6, writer * 1e-9, disk * 1e-9);
    }
  } catch (const std::exception& e) {
    return report_failure(e);
  }
  if (o.json) {
    const nlohmann::json out = {{"case", c.name}, {"n", c.n}, {"backend", backend.name()}, {"device", backend.describe()},
                                {"steps", o.steps}, {"warmup_steps", o.warmup}, {"folder", folder}, {"configs", rows}};
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}

}  // namespace bouss
