// Checks of the run driver on any backend (physics suite on the CPU, gpu suite on CUDA):
// an uninterrupted run and one stopped and restarted give the same output, bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <filesystem>
#include <random>
#include <string>

#include "io/case.hpp"
#include "io/checkpoint.hpp"
#include "netcdf_compare.hpp"
#include "scratch_dir.hpp"
#include "solver/run.hpp"

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

inline Case restart_case(const std::string& output, const std::vector<std::string>& overrides = {}) {
  std::vector<std::string> o = overrides;
  o.push_back("output.file=\"" + output + "\"");
  return parse_case(restart_case_json(), "restart_check.json", o);
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
inline void check_restart_equivalence(const Backend& be) {
  ScratchDir dir("restart");
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

}  // namespace bouss::test
