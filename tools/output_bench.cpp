// bouss bench CASE --output-every N[,M...]: what output costs the step. In one process, the
// same timed steps run with no output and with each configuration of snapshots (fields,
// precision, interval); every timed region ends with the output closed and fsynced, so the
// page cache cannot hide the disk. The disk's own rate is measured in the same folder by
// writing as many bytes with plain write() and fsync(); the writer's rate is the bytes over
// the time the IO thread spent writing. Each configuration is reported against its bound,
// the larger of the step without output and its bytes at the disk's rate.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include <zlib.h>

#include <cstring>

#include "grid/layout.hpp"
#include "config/case.hpp"
#include "config/case_json.hpp"
#include "io/disk_rate.hpp"
#include "io/file_util.hpp"
#include "io/io_thread.hpp"
#include "io/xdmf.hpp"
#include "run/run.hpp"
#include "run/stream_output.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct Config {
  std::string name;
  std::optional<OutputStream> stream;  // none: no output
  int every = 0;                       // steps between records (0: no output)
};

struct Timing {
  double ms_per_step = 0, bytes = 0, writer_seconds = 0, compressor_rate = 0;
  double finish_ms = 0;  // the end inside the timed region: the last records, close, fsync, XDMF
  double steps_ms_per_step = 0;  // the steps alone, before that end
};

// Bytes a configuration writes per step: one record of its stream (fields over the region
// in their precision, profiles), every `every` steps.
double cfg_bytes_per_step(const Case& c, const Config& cfg) {
  if (!cfg.stream) return 0;
  return plan_stream(c, *cfg.stream, Layout::make(c.n, 1, sizeof(double))).record_bytes / cfg.every;
}

// The compressor's rate on this configuration's data: the values of the arrays the stream's
// fields come from (plan_stream: u's for u_c), whole, at the end of the run, in the file's
// precision and 4 MiB chunks, through the shuffle filter and zlib at the stream's level, as
// HDF5 applies them (bytes in per second of compressing).
double compressor_rate(const Simulation& sim, const OutputStream& s) {
  const bool single = s.precision == Precision::single_precision;
  std::vector<unsigned char> raw, shuffled, packed;
  double bytes = 0, seconds = 0;
  for (const StreamPlan::Item& item : plan_stream(sim.config(), s, sim.grid().layout).items) {
    const std::vector<double> values = sim.host_values(item.source);
    const std::size_t elem = single ? sizeof(float) : sizeof(double);
    raw.resize(values.size() * elem);
    if (single)
      for (std::size_t i = 0; i < values.size(); ++i) reinterpret_cast<float*>(raw.data())[i] = float(values[i]);
    else std::memcpy(raw.data(), values.data(), raw.size());
    const std::size_t chunk = std::size_t(4) << 20;
    const auto t0 = clock_type::now();
    for (std::size_t at = 0; at < raw.size(); at += chunk) {
      const std::size_t n = std::min(chunk, raw.size() - at), count = n / elem;
      shuffled.resize(n);
      const unsigned char* in = raw.data() + at;
      if (s.compression.shuffle)
        for (std::size_t b = 0; b < elem; ++b)
          for (std::size_t i = 0; i < count; ++i) shuffled[b * count + i] = in[i * elem + b];
      else std::memcpy(shuffled.data(), in, n);
      uLongf out = compressBound(uLong(n));
      packed.resize(out);
      if (compress2(packed.data(), &out, shuffled.data(), uLong(n), s.compression.deflate) != Z_OK)
        throw std::runtime_error("bench: zlib failed");
    }
    seconds += seconds_since(t0);
    bytes += double(raw.size());
  }
  return seconds > 0 ? bytes / seconds : 0;
}

// `steps` timed steps of the case after `warmup`, the output (if any) closed inside the
// timed region.
Timing time_config(Case c, const Backend& backend, const Config& cfg, const std::string& folder, int warmup,
                   int steps) {
  c.time.steps.reset();
  c.time.end.reset();
  c.checkpoint = CheckpointParams{};
  c.output.streams.clear();
  std::string file;
  if (cfg.stream) {
    // A fresh name of this process's: the run refuses to replace an existing file, and a
    // user's file is never touched.
    file = (fs::path(folder) / ("bouss_bench_" + std::to_string(::getpid()) + "_" + cfg.name + ".nc")).string();
    c.output.streams.push_back(*cfg.stream);
    c.output.streams[0].file = file;
    c.output.streams[0].diagnostics = false;
  }
  RunControl control;
  control.progress_seconds.reset();
  // Every configuration keeps the diagnostics series (a run computes it whether or not it
  // writes a file), so that the differences are the records' alone.
  control.series = true;
  Run run(c, backend, control);
  run.start();
  for (int s = 0; s < warmup; ++s) run.step();
  run.flush_output();  // the warm-up's records on the disk before the clock starts
  backend.synchronize();
  const double busy0 = IoThread::instance().busy_seconds();
  const auto t0 = clock_type::now();
  for (int s = 0; s < steps; ++s) run.step();
  backend.synchronize();
  const auto t1 = clock_type::now();
  run.finish();  // the last record, the close and its fsync are inside the timed region
  backend.synchronize();
  Timing t;
  t.ms_per_step = 1e3 * seconds_since(t0) / steps;
  t.steps_ms_per_step = 1e3 * std::chrono::duration<double>(t1 - t0).count() / steps;
  t.writer_seconds = IoThread::instance().busy_seconds() - busy0;
  t.finish_ms = 1e3 * seconds_since(t1);
  if (!file.empty()) {
    t.bytes = cfg_bytes_per_step(c, cfg) * steps;  // the records of the timed steps
    if (cfg.stream->compression.enabled()) t.compressor_rate = compressor_rate(run.simulation(), *cfg.stream);
    std::error_code ec;
    fs::remove(file, ec);
    fs::remove(xdmf_path_for(file), ec);
  }
  return t;
}

// A name for a configuration: fields (or "all"), profiles, precision, interval, region, compression.
std::string config_name(const OutputStream& s, int every) {
  std::string name;
  if (s.fields == std::vector<std::string>{"T", "u", "v", "w", "p"}) name = "all";
  else
    for (const auto& f : s.fields) name += (name.empty() ? "" : "+") + f;
  if (!s.profiles.empty()) name += (name.empty() ? "" : "+") + std::string("profiles");
  if (s.average.enabled) {
    name += "_mean";
    for (const auto& m : s.average.moments) name += "+" + moment_variable(m);
  }
  name += std::string("_") + type_name(s.precision) + "_every" + std::to_string(every);
  if (!s.region.whole()) name += fmt::format("_{}{:g}", "xyz"[s.region.axis], s.region.coordinate);
  if (s.compression.enabled()) name += "_deflate" + std::to_string(s.compression.deflate);
  if (s.compression.significant_digits) name += "_digits" + std::to_string(*s.compression.significant_digits);
  return name;
}

}  // namespace

int output_bench(const BenchOptions& o) {
  Case c;
  Backend backend;
  if (!load_command_case(o.case_file, o.overrides, o.backend, c, backend)) return 2;
  std::vector<Config> configs{{"none", std::nullopt, 0}};
  try {
    for (int every : o.output_every)
      if (every < 1) throw CaseError("--output-every " + std::to_string(every) + ": expected steps >= 1");
    for (const auto& f : o.output_fields)
      if (f != "all" && f != "T" && f != "u" && f != "v" && f != "w" && f != "p")
        throw CaseError("--output-fields " + f + ": expected all, T, u, v, w or p");
    for (const auto& p : o.output_precision)
      if (!precision_of_type(p)) throw CaseError("--output-precision " + p + ": expected double or float");
    for (int every : o.output_every)
      for (const auto& f : o.output_fields)
        for (const auto& p : o.output_precision) {
          OutputStream s;
          s.interval_steps = every;
          s.precision = *precision_of_type(p);
          if (f != "all") s.fields = {f};
          configs.push_back({config_name(s, every), s, every});
        }
    // --stream SPEC: one stream as a case file writes it, checked by the case's own rules.
    for (const std::string& spec : o.streams) {
      if (!nlohmann::json::accept(spec) || !nlohmann::json::parse(spec).is_object())
        throw CaseError("--stream " + spec + ": expected one output stream as a JSON object, as a case file's "
                        "\"output\" entry, e.g. '{\"fields\":[\"T\"],\"interval_steps\":10}'");
      const Case with = parse_case(c.json_text, "--stream " + spec, {"output=[" + spec + "]"});
      const OutputStream& s = with.output.streams.at(0);
      if (!s.interval_steps || s.interval)
        throw CaseError("--stream " + spec + ": expected \"interval_steps\" (and no \"interval\"): the bench counts steps");
      configs.push_back({config_name(s, int(*s.interval_steps)), s, int(*s.interval_steps)});
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  std::string folder = o.output_dir;
  if (folder.empty()) {
    folder = c.output.streams.empty() ? "output" : fs::path(c.output.streams[0].file).parent_path().string();
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
    // Snapshots: at least 20 records; an averaged stream sums every step whatever its
    // records (its cost a step is the sums', with the records' every `every` steps).
    auto steps_of = [&](const Config& cfg) {
      return cfg.stream && cfg.stream->average.enabled ? o.steps : std::max(o.steps, 20 * cfg.every);
    };
    double most = 0;
    for (const Config& cfg : configs)
      if (cfg.stream) most = std::max(most, cfg_bytes_per_step(c, cfg) * steps_of(cfg));
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
      // With compression, the bytes at the compressor's rate bound it too.
      const double compressor_ms = t.compressor_rate > 0 ? 1e3 * bytes_per_step / t.compressor_rate : 0;
      const double bound = std::max({base, disk_ms, compressor_ms});
      const double writer = t.writer_seconds > 0 ? t.bytes / t.writer_seconds : 0;
      nlohmann::json stream = nullptr;
      if (cfg.stream) {
        Case one = c;
        one.output.streams = {*cfg.stream};
        one.output.streams[0].file = "";
        stream = nlohmann::json::parse(case_to_json(one).dump())["output"][0];
        stream.erase("file");
        stream.erase("diagnostics");
        stream.erase("diagnostics_interval_steps");
      }
      rows.push_back({{"config", cfg.name},
                      {"no_output_ms_per_step", base},
                      {"stream", stream},
                      {"every", cfg.every},
                      {"steps", steps_of(cfg)},
                      {"ms_per_step", t.ms_per_step},
                      {"steps_ms_per_step", t.steps_ms_per_step},
                      {"bytes_per_step", bytes_per_step},
                      {"disk_ms_per_step", disk_ms},
                      {"compressor_ms_per_step", compressor_ms},
                      {"finish_ms", t.finish_ms},
                      {"compressor_GBps", t.compressor_rate * 1e-9},
                      {"bound_ms_per_step", bound},
                      {"over_bound", t.ms_per_step / bound - 1},
                      {"over_no_output", t.ms_per_step / base - 1},
                      {"writer_GBps", writer * 1e-9},
                      {"disk_GBps", disk * 1e-9},
                      {"disk_before_GBps", disk_before * 1e-9},
                      {"disk_after_GBps", disk_after * 1e-9}});
      if (!o.json)
        spdlog::info("{:>30}: {:8.3f} ms/step ({:+6.1f}% vs none; bound {:.3f} ms: {:+6.1f}%)  {:8.3f} MB/step  "
                     "writer {:.2f} GB/s, disk {:.2f} GB/s{}",
                     cfg.name, t.ms_per_step, 100 * (t.ms_per_step / base - 1), bound,
                     100 * (t.ms_per_step / bound - 1), bytes_per_step * 1e-6, writer * 1e-9, disk * 1e-9,
                     t.compressor_rate > 0 ? fmt::format(", compressor {:.3f} GB/s", t.compressor_rate * 1e-9) : "");
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
