// Checks of the run driver on any backend (physics suite on the CPU, gpu suite on CUDA):
// an uninterrupted run and one stopped and restarted give the same output, bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <filesystem>
#include <random>
#include <string>

#include "config/case.hpp"
#include "io/checkpoint.hpp"
#include "netcdf_compare.hpp"
#include "scratch_dir.hpp"
#include "run/run.hpp"

namespace bouss::test {


// Convection from noise between no-slip plates, small enough for a test: the flow is in
// motion (Ra 1e5), dt adapts to the CFL limit every step, snapshots every 5 steps, the
// series every 2.
inline std::string restart_case_json(int steps = 24) {
  return R"({
  "name": "restart_check",
  "grid": {"n": [16, 16, 8], "extent": [[0, 2], [0, 2], [0, 1]]},
  "physics": {"rayleigh": 1e5, "prandtl": 0.71, "units": "free_fall"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}},
  "initial": {"perturbation": {"amplitude": 0.2, "seed": 7}},
  "time": {"steps": )" + std::to_string(steps) + R"(, "cfl": 0.5},
  "output": {"interval_steps": 5, "diagnostics_interval_steps": 2}
})";
}

// restart_case_json() with the point multigrid whose first guess is the pressure extrapolated
// from the last two steps: the checkpoint carries the pressure a step before ("p_previous").
inline std::string extrapolated_restart_case_json() {
  std::string json = restart_case_json();
  const std::string output = R"("output": )";
  json.insert(json.find(output), R"("pressure": {"solver": "multigrid", "first_guess": "extrapolated"},
  )");
  return json;
}

// The same with the multigrid's V-cycles on the device alone, checked every 3rd step and
// fixed between (pressure.check_interval): a restart resumes the cadence and the fixed count,
// and on a GPU its first step of fixed cycles runs before any graph is captured.
inline std::string fixed_cycles_restart_case_json() {
  std::string json = extrapolated_restart_case_json();
  const std::string guess = R"("first_guess": "extrapolated")";
  json.replace(json.find(guess), guess.size(), guess + R"(, "cpu_coarse_cells": 0, "check_interval": 3)");
  return json;
}

// A lock exchange in a channel (the gravity currents of cases/lock_exchange_2d.json, small)
// with the same schedule: its diagnostics series holds the fronts and the energy budget, whose
// time integrals a checkpoint carries.
inline std::string lock_restart_case_json(int steps = 24) {
  return R"({
  "name": "lock_restart_check",
  "grid": {"n": [64, 1, 8], "extent": [[0, 16], [0, 0.25], [0, 2]]},
  "physics": {"grashof": 1e4, "schmidt": 0.71},
  "boundaries": {"x_lo": {"velocity": "no_slip", "temperature": "insulating"},
                 "x_hi": {"velocity": "no_slip", "temperature": "insulating"},
                 "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": "insulating"},
                 "z_hi": {"velocity": "free_slip", "temperature": "insulating"}},
  "initial": {"temperature": {"profile": "lock", "left": -0.5, "right": 0.5, "position": 8, "thickness": 0.5}},
  "time": {"steps": )" + std::to_string(steps) + R"(, "cfl": 0.5},
  "output": {"interval_steps": 5, "diagnostics_interval_steps": 2}
})";
}

inline Case restart_case(const std::string& output, const std::vector<std::string>& overrides = {},
                         const std::string& json = restart_case_json()) {
  std::vector<std::string> o = overrides;
  o.push_back("output.file=\"" + output + "\"");
  return parse_case(json, "restart_check.json", o);
}

// Runs the case to its end, or stops it right after a checkpoint at `stop_at` (then the
// run ends as a stopped run does: final records written after the checkpoint, output closed).
inline std::string run_case(const Case& c, const Backend& be, long stop_at = -1, const std::string& restart = "") {
  RunControl control;
  control.progress_seconds.reset();
  if (!restart.empty()) control.restart = restart;
  std::string checkpoint;
  control.after_step = [&](Run& run) {
    if (run.simulation().steps_done() == stop_at) {
      checkpoint = run.write_checkpoint();
      run.stop();
    }
  };
  Run run(c, be, control);
  run.execute();
  return checkpoint;
}

// Stopped at each of several steps and restarted, into the same file and into a new one:
// the first step (the next is the first Adams-Bashforth step with an old tendency), a step
// with a snapshot (5, 10), steps between, and one before the last.
// `json`: the case (restart_case_json() or lock_restart_case_json()).
inline void check_restart_equivalence(const Backend& be, const std::string& json = restart_case_json()) {
  ScratchDir dir("restart");
  auto restart_case = [&json](const std::string& output) { return test::restart_case(output, {}, json); };
  const std::string reference = dir.file("uninterrupted.nc");
  run_case(restart_case(reference), be);
  for (long stop_at : {1L, 2L, 5L, 7L, 10L, 23L}) {
    SCOPED_TRACE("stopped at step " + std::to_string(stop_at));
    const std::string same = dir.file("same_" + std::to_string(stop_at) + ".nc");
    const std::string checkpoint = run_case(restart_case(same), be, stop_at);
    ASSERT_TRUE(std::filesystem::exists(checkpoint)) << checkpoint;
    // The stopped run's file ends with records at the stop; the restart replaces them.
    EXPECT_NE(bitwise_difference(reference, same), "");
    run_case(restart_case(same), be, -1, checkpoint);
    EXPECT_EQ(bitwise_difference(reference, same), "") << "restarted into the same file";
    // Into a new file: it starts with the state at the checkpoint; its last record (and the
    // series' last) equal the uninterrupted run's.
    const std::string fresh = dir.file("new_" + std::to_string(stop_at) + ".nc");
    run_case(restart_case(fresh), be, -1, checkpoint);
    const auto a = read_variables(reference), b = read_variables(fresh);
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(b.at("time").front(), read_checkpoint(checkpoint).time) << "the new file starts at the restart";
    for (const char* name : {"T", "u", "v", "w", "p"}) {
      const auto& x = a.at(name);
      const auto& y = b.at(name);
      const std::size_t record = x.size() / a.at("time").size();
      ASSERT_EQ(y.size() % record, 0u);
      EXPECT_TRUE(std::equal(x.end() - record, x.end(), y.end() - record)) << name << " at the end differs";
    }
    EXPECT_EQ(a.at("kinetic_energy").back(), b.at("kinetic_energy").back());
    EXPECT_EQ(a.at("time").back(), b.at("time").back());
    // A lock exchange's budget: its integrals continue from the checkpoint's, not from 0.
    if (a.count("energy_residual"))
      for (const char* name : {"dissipation", "conversion", "energy_residual", "front_floor"})
        EXPECT_EQ(a.at(name).back(), b.at(name).back()) << name;
  }
}

// Asynchronous snapshots (packed on the device, copied on the copy stream, written by the
// IO thread while the next steps run) hold exactly the state of their step: a run writing
// every step, in double and in float, against the same run's values read synchronously.
inline void check_async_snapshots_hold_their_step(const Backend& be) {
  ScratchDir dir("async_snapshots");
  const int steps = 6;
  for (const char* precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    const std::string out = dir.file(std::string(precision) + ".nc");
    const std::vector<std::string> o = {"time.steps=" + std::to_string(steps), "output.interval_steps=1",
                                        std::string("output.precision=\"") + precision + "\""};
    run_case(restart_case(out, o), be);
    // The same run without output, its fields read back after each step.
    std::vector<std::map<std::string, std::vector<double>>> expected;
    RunControl control;
    control.progress_seconds.reset();
    control.after_step = [&](Run& run) {
      std::map<std::string, std::vector<double>> values;
      for (const char* name : {"T", "u", "v", "w", "p"}) values[name] = run.simulation().host_values(name);
      expected.push_back(values);
    };
    Run quiet(restart_case("", o), be, control);
    quiet.start();
    control.after_step(quiet);  // the initial state, record 0
    while (quiet.step()) {
    }
    quiet.finish();
    const auto file = read_variables(out);
    ASSERT_EQ(file.at("time").size(), std::size_t(steps + 1));
    ASSERT_EQ(expected.size(), std::size_t(steps + 1));
    for (const char* name : {"T", "u", "v", "w", "p"}) {
      const auto& got = file.at(name);
      const std::size_t record = got.size() / (steps + 1);
      for (int r = 0; r <= steps; ++r) {
        const auto& want = expected[r].at(name);
        ASSERT_EQ(want.size(), record);
        std::size_t differ = 0;
        for (std::size_t i = 0; i < record; ++i) {
          const double w = std::string(precision) == "float" ? double(float(want[i])) : want[i];
          differ += std::memcmp(&w, &got[r * record + i], sizeof(double)) != 0;
        }
        EXPECT_EQ(differ, 0u) << name << " record " << r;
      }
    }
  }
}

// A run with four streams (the full fields with u_c v_c w_c; a z plane in float; a y plane,
// compressed, every 2 steps; the profiles every 3 steps, holding the diagnostics series):
// every record of each equals what the same run's own state gives at that step, cut or
// averaged on the host: the planes and u_c v_c w_c bit for bit, the profiles to rounding.
inline std::string streams_output_json(const std::string& dir) {
  return R"([
    {"file": ")" + dir + R"(/full.nc", "interval_steps": 1, "fields": ["T", "u", "v", "w", "p", "u_c", "v_c", "w_c"],
     "diagnostics": false},
    {"file": ")" + dir + R"(/mid.nc", "interval_steps": 1, "fields": ["T", "w", "u_c"], "region": {"z": 0.5},
     "precision": "float"},
    {"file": ")" + dir + R"(/side.nc", "interval_steps": 2, "fields": ["u", "v", "p"], "region": {"y": 0.7},
     "compression": {"deflate": 1}},
    {"file": ")" + dir + R"(/profiles.nc", "interval_steps": 3, "profiles": true, "diagnostics": true,
     "diagnostics_interval_steps": 2}
  ])";
}

// Interior values of a field on its own extents (n, plus one along its staggered axis).
struct HostField {
  std::array<int, 3> n{};
  std::vector<double> v;
  double at(int i, int j, int k) const { return v[i + std::size_t(n[0]) * (j + std::size_t(n[1]) * k)]; }
};

inline HostField host_field(const Simulation& sim, const std::string& name) {
  HostField f;
  f.n = sim.config().n;
  if (name == "u") ++f.n[0];
  if (name == "v") ++f.n[1];
  if (name == "w") ++f.n[2];
  f.v = sim.host_values(name);
  return f;
}

// What a stream's variable should hold at one step, from the full fields on the host.
inline std::vector<double> expected_values(const std::map<std::string, HostField>& s, const OutputStream& o,
                                           const std::string& name) {
  const bool centred_mean = name.size() == 3 && name[1] == '_';
  const std::string source = centred_mean ? name.substr(0, 1) : name;
  const HostField& f = s.at(source);
  const int a = centred_mean ? (source == "u" ? 0 : source == "v" ? 1 : 2) : -1;
  std::array<int, 3> lo{0, 0, 0}, hi = f.n;
  if (centred_mean) hi[a] -= 1;
  if (!o.region.whole()) {
    const int r = o.region.axis;
    lo[r] = o.region.index;
    hi[r] = o.region.index + (hi[r] > s.at("T").n[r] ? 2 : 1);
  }
  std::vector<double> out;
  for (int k = lo[2]; k < hi[2]; ++k)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int i = lo[0]; i < hi[0]; ++i) {
        double x = f.at(i, j, k);
        if (centred_mean) x = 0.5 * (x + f.at(i + (a == 0), j + (a == 1), k + (a == 2)));
        if (o.precision == Precision::single_precision) x = double(float(x));
        out.push_back(x);
      }
  return out;
}

// The horizontal means of docs/output.md "Profiles", plainly on the host.
inline std::vector<double> expected_profile(const std::map<std::string, HostField>& s, const std::string& name) {
  const HostField &T = s.at("T"), &u = s.at("u"), &v = s.at("v"), &w = s.at("w");
  const int nx = T.n[0], ny = T.n[1], nz = T.n[2];
  const bool faces = name == "w_rms" || name == "wT_mean";
  std::vector<double> out;
  for (int k = 0; k < nz + (faces ? 1 : 0); ++k) {
    double sum = 0, sum2 = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        double q = 0;
        if (name == "T_mean" || name == "T_rms") q = T.at(i, j, k);
        if (name == "u_rms") q = 0.5 * (u.at(i, j, k) * u.at(i, j, k) + u.at(i + 1, j, k) * u.at(i + 1, j, k));
        if (name == "v_rms") q = 0.5 * (v.at(i, j, k) * v.at(i, j, k) + v.at(i, j + 1, k) * v.at(i, j + 1, k));
        if (name == "w_rms") q = w.at(i, j, k) * w.at(i, j, k);
        // At the plates w = 0 (no-slip): the flux is zero whatever the ghost T.
        if (name == "wT_mean") q = k == 0 || k == nz ? 0.0 : w.at(i, j, k) * 0.5 * (T.at(i, j, k) + T.at(i, j, k - 1));
        sum += q;
        sum2 += q * q;
      }
    const double cells = double(nx) * ny, mean = sum / cells;
    if (name == "T_mean" || name == "wT_mean") out.push_back(mean);
    else if (name == "T_rms") out.push_back(std::sqrt(std::max(0.0, sum2 / cells - mean * mean)));
    else out.push_back(std::sqrt(mean));
  }
  return out;
}

inline void check_streams_hold_their_step(const Backend& be) {
  ScratchDir dir("streams");
  const int steps = 6;
  const std::vector<std::string> o = {"time.steps=" + std::to_string(steps), "output=" + streams_output_json(dir.path().string())};
  const Case c = parse_case(restart_case_json(), "streams.json", o);
  run_case(c, be);
  // The same run without output, its fields after each step.
  std::vector<std::map<std::string, HostField>> state;
  RunControl control;
  control.progress_seconds.reset();
  control.after_step = [&](Run& run) {
    std::map<std::string, HostField> fields;
    for (const char* name : {"T", "u", "v", "w", "p"}) fields[name] = host_field(run.simulation(), name);
    state.push_back(std::move(fields));
  };
  Case quiet_case = c;
  quiet_case.output.streams.clear();
  Run quiet(quiet_case, be, control);
  quiet.start();
  control.after_step(quiet);  // the initial state, step 0
  while (quiet.step()) {
  }
  quiet.finish();
  ASSERT_EQ(state.size(), std::size_t(steps + 1));
  for (const OutputStream& stream : c.output.streams) {
    SCOPED_TRACE(stream.file);
    const auto file = read_variables(stream.file);
    const std::int64_t every = *stream.interval_steps;
    const std::size_t records = std::size_t(steps / every + 1);
    for (const std::string& name : stream.fields) {
      const auto& got = file.at(name);
      ASSERT_EQ(got.size() % records, 0u) << name;
      const std::size_t record = got.size() / records;
      for (std::size_t r = 0; r < records; ++r) {
        const std::vector<double> want = expected_values(state[r * every], stream, name);
        ASSERT_EQ(want.size(), record) << name;
        std::size_t differ = 0;
        for (std::size_t i = 0; i < record; ++i) differ += std::memcmp(&want[i], &got[r * record + i], sizeof(double)) != 0;
        EXPECT_EQ(differ, 0u) << name << " record " << r;
      }
    }
    for (const std::string& name : stream.profiles) {
      const auto& got = file.at(name);
      ASSERT_EQ(got.size() % records, 0u) << name;
      const std::size_t levels = got.size() / records;
      for (std::size_t r = 0; r < records; ++r) {
        const std::vector<double> want = expected_profile(state[r * every], name);
        ASSERT_EQ(want.size(), levels) << name;
        double scale = 0;
        for (double x : want) scale = std::max(scale, std::abs(x));
        for (std::size_t k = 0; k < levels; ++k)
          EXPECT_NEAR(got[r * levels + k], want[k], 1e-12 * scale + 1e-300) << name << " record " << r << " level " << k;
      }
    }
    if (!stream.profiles.empty()) {
      ASSERT_EQ(file.at("profile_time").size(), records);
      EXPECT_EQ(file.count("time"), 0u) << "a stream of profiles alone has no time dimension";
    }
    // The series is in the stream that holds it, and only there.
    EXPECT_EQ(file.count("kinetic_energy"), stream.diagnostics ? 1u : 0u);
  }
}

// Several streams stopped and restarted into the same files: each continues bit for bit.
inline void check_streams_restart(const Backend& be) {
  ScratchDir dir("streams_restart");
  auto streams_case = [&](const std::string& sub) {
    std::filesystem::create_directories(dir.file(sub));
    return parse_case(restart_case_json(12), "streams.json", {"output=" + streams_output_json(dir.file(sub))});
  };
  const Case reference = streams_case("uninterrupted");
  run_case(reference, be);
  const Case stopped = streams_case("stopped");
  const std::string checkpoint = run_case(stopped, be, 5);
  ASSERT_TRUE(std::filesystem::exists(checkpoint)) << checkpoint;
  run_case(stopped, be, -1, checkpoint);
  for (std::size_t i = 0; i < reference.output.streams.size(); ++i)
    EXPECT_EQ(bitwise_difference(reference.output.streams[i].file, stopped.output.streams[i].file), "")
        << stopped.output.streams[i].file;
}


// Output times on the schedule (time.land_on_outputs, on by default): with dt adaptive and
// fixed (0.13 against an interval of 0.3: no multiple of it), the records of a stream with
// a time interval lie at k * 0.3 to the bit, as the decimals read (0.9, not
// 3 * 0.3 = 0.8999999999999999; the steps are shortened to land there)
// and the last at time.end; a run stopped between two output times and restarted into the
// same file gives the uninterrupted file to the bit, and its checkpoints by time lie on their
// own interval too. Turned off, the records fall at the first step past each multiple.
inline void check_output_times_land_on_the_schedule(const Backend& be) {
  ScratchDir dir("landing");
  std::string json = restart_case_json();
  const std::string steps = R"("interval_steps": 5)";
  json.replace(json.find(steps), steps.size(), R"("interval": 0.3)");
  for (const std::string dt : {"", "time.dt=0.13"}) {
    SCOPED_TRACE(dt.empty() ? "adaptive dt" : dt);
    std::vector<std::string> o = {"time.steps=100000", "time.end=4.3", "checkpoint.interval=0.7"};
    if (!dt.empty()) o.push_back(dt);
    const std::string reference = dir.file("uninterrupted.nc");
    run_case(restart_case(reference, o, json), be);
    const std::vector<double> times = read_variables(reference).at("time");
    ASSERT_EQ(times.size(), 16u);  // 0, 0.3 .. 4.2 and 4.3
    for (std::size_t k = 0; k + 1 < times.size(); ++k)
      EXPECT_EQ(times[k], std::stod(std::to_string(k * 3) + "e-1")) << "record " << k;
    EXPECT_EQ(times.back(), 4.3);
    const std::string same = dir.file("stopped.nc");
    const std::string checkpoint = run_case(restart_case(same, o, json), be, 7);
    ASSERT_TRUE(std::filesystem::exists(checkpoint)) << checkpoint;
    run_case(restart_case(same, o, json), be, -1, checkpoint);
    EXPECT_EQ(bitwise_difference(reference, same), "") << "restarted between output times";
    // The checkpoints the run keeps (keep = 2): the last by the interval, at 4.2 (6 * 0.7 is
    // 4.199999999999999), and the final one at the end.
    std::vector<double> at;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
      if (e.path().string().find("uninterrupted.checkpoint.") != std::string::npos)
        at.push_back(read_checkpoint(e.path().string()).time);
    std::sort(at.begin(), at.end());
    EXPECT_EQ(at, (std::vector<double>{4.2, 4.3}));
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) std::filesystem::remove(e.path());
  }
  {
    const std::string off = dir.file("off.nc");
    run_case(restart_case(off, {"time.steps=100000", "time.end=4.3", "time.land_on_outputs=false"}, json), be);
    const std::vector<double> times = read_variables(off).at("time");
    ASSERT_GT(times.size(), 2u);
    EXPECT_GT(times[1], 0.3) << "off: the first step past 0.3, not 0.3 itself";
  }
}


// An averaged stream beside a stream of snapshots at every step (docs/output.md "Averaged
// records"): averaged over one step, each record is the trapezoid of the two snapshots
// around it: the mean of each field and profile the mean of the two (T_rms the rms about the
// mean over the planes and both steps), a covariance <ab> - <a><b> from the two snapshots'
// products, time_bnds the two snapshots' times. Over the whole domain and over a plane.
inline void check_averages_are_trapezoids_of_snapshots(const Backend& be) {
  ScratchDir dir("averages");
  const std::string snap = dir.file("snap.nc"), whole = dir.file("avg.nc"), plane = dir.file("plane.nc");
  const std::string output = R"([
    {"file": ")" + snap + R"(", "interval_steps": 1, "fields": ["T", "w_c", "u_c"],
     "profiles": ["T_mean", "T_rms", "w_rms", "wT_mean"]},
    {"file": ")" + whole + R"(", "interval_steps": 1, "fields": ["T", "w_c", "w"],
     "profiles": ["T_mean", "T_rms", "w_rms", "wT_mean"], "average": {"moments": ["w_c*T", "T*T", "u_c*w_c"]}},
    {"file": ")" + plane + R"(", "interval_steps": 1, "fields": ["T"], "region": {"z": 0.3},
     "average": {"moments": ["T*T"]}}
  ])";
  run_case(parse_case(restart_case_json(6), "averages.json", {"output=" + output}), be);
  const auto s = read_variables(snap), a = read_variables(whole), p = read_variables(plane);
  ASSERT_EQ(s.at("time").size(), 7u);
  ASSERT_EQ(a.at("time").size(), 6u) << "no record at the start: an average needs an interval";
  const std::size_t cells = 16 * 16 * 8, levels = 8, plane_cells = 16 * 16;
  const int k_plane = 2;  // z = 0.3 in cells of 0.125
  for (std::size_t r = 0; r < 6; ++r) {
    SCOPED_TRACE("record " + std::to_string(r));
    EXPECT_EQ(a.at("time")[r], s.at("time")[r + 1]);
    EXPECT_EQ(a.at("time_bnds")[2 * r], s.at("time")[r]);
    EXPECT_EQ(a.at("time_bnds")[2 * r + 1], s.at("time")[r + 1]);
    auto snap_at = [&](const char* name, std::size_t rec, std::size_t i, std::size_t per) {
      return s.at(name)[rec * per + i];
    };
    auto mean_of = [&](const char* name, std::size_t i, std::size_t per) {
      return 0.5 * (snap_at(name, r, i, per) + snap_at(name, r + 1, i, per));
    };
    auto product_mean = [&](const char* x, const char* y, std::size_t i) {
      return 0.5 * (snap_at(x, r, i, cells) * snap_at(y, r, i, cells) + snap_at(x, r + 1, i, cells) * snap_at(y, r + 1, i, cells));
    };
    for (std::size_t i = 0; i < cells; ++i) {
      ASSERT_NEAR(a.at("T")[r * cells + i], mean_of("T", i, cells), 1e-14) << "T at " << i;
      ASSERT_NEAR(a.at("w_c")[r * cells + i], mean_of("w_c", i, cells), 1e-14) << "w_c at " << i;
      ASSERT_NEAR(a.at("w_c_T_covariance")[r * cells + i],
                  product_mean("w_c", "T", i) - mean_of("w_c", i, cells) * mean_of("T", i, cells), 1e-14)
          << "w_c T covariance at " << i;
      ASSERT_NEAR(a.at("T_variance")[r * cells + i], product_mean("T", "T", i) - std::pow(mean_of("T", i, cells), 2), 1e-14)
          << "T variance at " << i;
      ASSERT_NEAR(a.at("u_c_w_c_covariance")[r * cells + i],
                  product_mean("u_c", "w_c", i) - mean_of("u_c", i, cells) * mean_of("w_c", i, cells), 1e-14);
    }
    for (std::size_t i = 0; i < plane_cells; ++i) {
      const std::size_t at = k_plane * plane_cells + i;
      ASSERT_NEAR(p.at("T")[r * plane_cells + i], mean_of("T", at, cells), 1e-14) << "the plane's T at " << i;
      ASSERT_NEAR(p.at("T_variance")[r * plane_cells + i], product_mean("T", "T", at) - std::pow(mean_of("T", at, cells), 2),
                  1e-14);
    }
    for (std::size_t k = 0; k < levels; ++k) {
      ASSERT_NEAR(a.at("T_mean")[r * levels + k], mean_of("T_mean", k, levels), 1e-14) << "level " << k;
      // T_rms about the mean over the planes and the two steps.
      const double m = mean_of("T_mean", k, levels);
      const double second = 0.5 * (std::pow(snap_at("T_rms", r, k, levels), 2) + std::pow(snap_at("T_mean", r, k, levels), 2) +
                                   std::pow(snap_at("T_rms", r + 1, k, levels), 2) + std::pow(snap_at("T_mean", r + 1, k, levels), 2));
      ASSERT_NEAR(a.at("T_rms")[r * levels + k], std::sqrt(std::max(0.0, second - m * m)), 1e-12) << "level " << k;
    }
    for (std::size_t k = 0; k <= levels; ++k) {
      ASSERT_NEAR(a.at("wT_mean")[r * (levels + 1) + k], mean_of("wT_mean", k, levels + 1), 1e-14) << "face " << k;
      const double w2 = 0.5 * (std::pow(snap_at("w_rms", r, k, levels + 1), 2) + std::pow(snap_at("w_rms", r + 1, k, levels + 1), 2));
      ASSERT_NEAR(a.at("w_rms")[r * (levels + 1) + k], std::sqrt(w2), 1e-14) << "face " << k;
    }
  }
}

// An averaged stream whose window is open at a checkpoint (every 4 steps; stopped at 6 and
// at 9) continues bit for bit after a restart into the same file: the sums, the window's
// clock and its sample count are the checkpoint's.
inline void check_averages_restart(const Backend& be) {
  ScratchDir dir("averages_restart");
  auto averaged_case = [&](const std::string& sub) {
    std::filesystem::create_directories(dir.file(sub));
    const std::string output = R"([
      {"file": ")" + dir.file(sub) + R"(/snap.nc", "interval_steps": 5},
      {"file": ")" + dir.file(sub) + R"(/avg.nc", "interval_steps": 4, "fields": ["T", "u", "w_c"], "profiles": true,
       "average": {"moments": ["w_c*T"]}},
      {"file": ")" + dir.file(sub) + R"(/sparse.nc", "interval": 0.9, "fields": ["T"], "region": {"y": 1.1},
       "average": {"every_steps": 2, "moments": ["T*T"]}}
    ])";
    return parse_case(restart_case_json(14), "averages.json", {"output=" + output});
  };
  const Case reference = averaged_case("uninterrupted");
  run_case(reference, be);
  for (long stop_at : {6L, 9L}) {
    SCOPED_TRACE("stopped at step " + std::to_string(stop_at));
    const Case stopped = averaged_case("stopped_" + std::to_string(stop_at));
    const std::string checkpoint = run_case(stopped, be, stop_at);
    ASSERT_TRUE(std::filesystem::exists(checkpoint)) << checkpoint;
    run_case(stopped, be, -1, checkpoint);
    for (std::size_t i = 0; i < reference.output.streams.size(); ++i)
      EXPECT_EQ(bitwise_difference(reference.output.streams[i].file, stopped.output.streams[i].file), "")
          << stopped.output.streams[i].file;
  }
  EXPECT_EQ(read_variables(reference.output.streams[1].file).at("time").size(), 4u) << "steps 4, 8, 12 and the end";
}


// Profiles averaged every step take their level sums from the step's own state check
// (Simulation::keep_level_sums): the check's value, and so every dt and the flow, stay
// those of a run without them, to the bit; the fixed passes' CUDA graph included.
inline void check_averaged_profiles_leave_the_flow_alone(const Backend& be) {
  ScratchDir dir("averaged_profiles");
  const std::string alone = dir.file("alone.nc"), beside = dir.file("beside.nc");
  const std::vector<std::string> o = {"pressure.solver=\"fft\"", "pressure.check_interval=4"};
  std::vector<std::string> a = o, b = o;
  a.push_back(R"(output=[{"file": ")" + alone + R"(", "interval_steps": 3}])");
  b.push_back(R"(output=[{"file": ")" + beside + R"(", "interval_steps": 3},
                         {"file": ")" + dir.file("means.nc") + R"(", "interval_steps": 5, "profiles": true, "average": true}])");
  run_case(parse_case(restart_case_json(16), "alone.json", a), be);
  run_case(parse_case(restart_case_json(16), "beside.json", b), be);
  EXPECT_EQ(bitwise_difference(alone, beside), "");
  EXPECT_EQ(read_variables(dir.file("means.nc")).at("profile_time").size(), 4u);  // steps 5, 10, 15, 16
}

}  // namespace bouss::test
