// The case-file parser: valid cases give the right values, every bad input gives one
// line naming the file, the JSON path and what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grid/stretching.hpp"
#include "config/case.hpp"
#include "config/case_json.hpp"
#include "physics/time_step.hpp"
#include "config/units.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "model/pressure_plan.hpp"
#include "run/run_files.hpp"

namespace bouss {
namespace {

using json = nlohmann::ordered_json;

const char* const kSource = "cases/test.json";

// A valid case using every key, in the dimensional form.
json full_case() {
  return json::parse(R"({
    "name": "rb",
    "description": "Rayleigh-Benard test",
    "grid": {"n": [32, 32, 16], "extent": [[0, 2], [-1, 1], [0, 1]]},
    "physics": {"nu": 0.01, "kappa": 0.02, "buoyancy": 9.81, "reference_temperature": 0.25},
    "boundaries": {
      "x_lo": "periodic", "x_hi": "periodic",
      "y_lo": {"velocity": "free_slip", "temperature": "insulating"},
      "y_hi": {"velocity": "free_slip", "temperature": "insulating"},
      "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
      "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}
    },
    "initial": {
      "temperature": {"profile": "linear", "bottom": 0.9, "top": 0.1},
      "perturbation": {"amplitude": 0.01, "seed": 42}
    },
    "time": {"steps": 100, "end": 5.0, "cfl": 0.4, "dt": 0.001},
    "pressure": {"solver": "multigrid", "tolerance": 1e-6, "max_cycles": 20,
                 "pre_sweeps": 3, "post_sweeps": 1},
    "precision": "double",
    "output": {"file": "out/rb.nc", "interval": 0.5, "interval_steps": 10, "fields": ["T", "w"]},
    "backend": "cpu"
  })");
}

// Only the required keys: plates at 3 (bottom) and 1 (top), height 2.
json minimal_case() {
  return json::parse(R"({
    "name": "minimal",
    "grid": {"n": [16, 16, 8], "extent": [[0, 4], [0, 4], [0, 2]]},
    "physics": {"nu": 1, "kappa": 1, "buoyancy": 0},
    "boundaries": {
      "x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
      "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 3}},
      "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 1}}
    },
    "time": {"steps": 10}
  })");
}

Case parse(const json& j, const std::vector<std::string>& overrides = {}) {
  return parse_case(j.dump(), kSource, overrides);
}

// Passes when parsing throws CaseError whose one-line message is
// "cases/test.json: POINTER: ..." and contains every word.
::testing::AssertionResult fails_with(const std::string& text, const std::string& pointer,
                                      const std::vector<std::string>& words,
                                      const std::vector<std::string>& overrides = {}) {
  std::string message;
  try {
    // Read, then met with the solver registry (the pressure solver's name and the grid).
    plan_pressure(parse_case(text, kSource, overrides));
    return ::testing::AssertionFailure() << "no error";
  } catch (const CaseError& e) {
    message = e.what();
  }
  const std::string prefix = std::string(kSource) + ": " + pointer + ": ";
  if (message.compare(0, prefix.size(), prefix) != 0) {
    return ::testing::AssertionFailure() << "expected prefix '" << prefix << "' in: " << message;
  }
  if (message.find('\n') != std::string::npos) {
    return ::testing::AssertionFailure() << "not one line: " << message;
  }
  for (const auto& word : words) {
    if (message.find(word) == std::string::npos) {
      return ::testing::AssertionFailure() << "no '" << word << "' in: " << message;
    }
  }
  return ::testing::AssertionSuccess() << message;
}

::testing::AssertionResult fails_with(const json& j, const std::string& pointer,
                                      const std::vector<std::string>& words,
                                      const std::vector<std::string>& overrides = {}) {
  return fails_with(j.dump(), pointer, words, overrides);
}

// ---------------------------------------------------------------------------
// valid cases

TEST(CaseFile, FullCaseParsesEveryValue) {
  const Case c = parse(full_case());
  EXPECT_EQ(c.source, kSource);
  EXPECT_EQ(c.name, "rb");
  EXPECT_EQ(c.description, "Rayleigh-Benard test");
  EXPECT_EQ(c.n, (std::array<int, 3>{32, 32, 16}));
  EXPECT_EQ(c.extent[1][0], -1.0);
  EXPECT_EQ(c.extent[1][1], 1.0);
  EXPECT_EQ(c.length(0), 2.0);

  EXPECT_EQ(c.physics.units, Units::dimensional);
  EXPECT_FALSE(c.physics.rayleigh.has_value());
  EXPECT_FALSE(c.physics.prandtl.has_value());
  EXPECT_EQ(c.physics.nu, 0.01);
  EXPECT_EQ(c.physics.kappa, 0.02);
  EXPECT_EQ(c.physics.buoyancy, 9.81);
  EXPECT_EQ(c.physics.reference_temperature, 0.25);

  EXPECT_TRUE(c.periodic(0));
  EXPECT_FALSE(c.periodic(1));
  EXPECT_EQ(c.faces[0].temperature, TemperatureBC::periodic);
  EXPECT_EQ(c.faces[2].velocity, VelocityBC::free_slip);
  EXPECT_EQ(c.faces[3].temperature, TemperatureBC::insulating);
  EXPECT_EQ(c.faces[4].velocity, VelocityBC::no_slip);
  EXPECT_EQ(c.faces[4].temperature, TemperatureBC::fixed);
  EXPECT_EQ(c.faces[4].temperature_value, 1.0);
  EXPECT_EQ(c.faces[5].temperature_value, 0.0);

  EXPECT_EQ(c.initial.profile, TemperatureProfile::linear);
  EXPECT_EQ(c.initial.bottom, 0.9);
  EXPECT_EQ(c.initial.top, 0.1);
  EXPECT_EQ(c.initial.perturbation_amplitude, 0.01);
  EXPECT_EQ(c.initial.seed, 42u);

  EXPECT_EQ(c.time.steps, 100);
  EXPECT_EQ(c.time.end, 5.0);
  EXPECT_EQ(c.time.cfl, 0.4);
  EXPECT_EQ(c.time.dt, 0.001);

  EXPECT_EQ(c.pressure.solver, "multigrid");
  EXPECT_EQ(c.pressure.tolerance, 1e-6);
  EXPECT_EQ(c.pressure.max_cycles, 20);
  EXPECT_EQ(c.pressure.pre_sweeps, 3);
  EXPECT_EQ(c.pressure.post_sweeps, 1);

  EXPECT_EQ(c.precision, Precision::double_precision);
  EXPECT_EQ(c.output.streams.at(0).file, "out/rb.nc");
  EXPECT_EQ(c.output.streams.at(0).interval, 0.5);
  EXPECT_EQ(c.output.streams.at(0).interval_steps, 10);
  EXPECT_EQ(c.output.streams.at(0).fields, (std::vector<std::string>{"T", "w"}));
  EXPECT_EQ(c.backend, "cpu");
}

TEST(CaseFile, MinimalCaseGetsDefaults) {
  const Case c = parse(minimal_case());
  EXPECT_EQ(c.description, "");
  EXPECT_EQ(c.physics.buoyancy, 0.0);
  EXPECT_EQ(c.physics.reference_temperature, 2.0);  // mean of the plates
  EXPECT_EQ(c.initial.profile, TemperatureProfile::conduction);
  EXPECT_EQ(c.initial.bottom, 3.0);
  EXPECT_EQ(c.initial.top, 1.0);
  EXPECT_EQ(c.initial.perturbation_amplitude, 0.0);
  EXPECT_EQ(c.initial.seed, 1u);
  EXPECT_EQ(c.time.steps, 10);
  EXPECT_FALSE(c.time.end.has_value());
  EXPECT_EQ(c.time.cfl, 0.5);
  EXPECT_FALSE(c.time.dt.has_value());
  EXPECT_EQ(c.pressure.solver, "auto");
  EXPECT_EQ(c.pressure.tolerance, 1e-8);
  EXPECT_EQ(c.pressure.max_cycles, 50);
  EXPECT_EQ(c.pressure.pre_sweeps, 2);
  EXPECT_EQ(c.pressure.post_sweeps, 2);
  EXPECT_EQ(c.precision, Precision::double_precision);
  EXPECT_EQ(c.output.streams.at(0).file, "output/minimal.nc");
  EXPECT_FALSE(c.output.streams.at(0).interval.has_value());
  EXPECT_FALSE(c.output.streams.at(0).interval_steps.has_value());
  EXPECT_EQ(c.output.streams.at(0).fields, (std::vector<std::string>{"T", "u", "v", "w", "p"}));
  EXPECT_EQ(c.backend, "auto");
}

TEST(CaseFile, DefaultInitialIsUniformZeroWithoutFixedPlates) {
  json j = minimal_case();
  j["boundaries"]["z_hi"]["temperature"] = "insulating";
  const Case c = parse(j);
  EXPECT_EQ(c.initial.profile, TemperatureProfile::uniform);
  EXPECT_EQ(c.initial.value, 0.0);
  EXPECT_EQ(c.physics.reference_temperature, 0.0);
}

TEST(CaseFile, InitialProfilesParse) {
  json j = minimal_case();
  j["initial"] = {{"temperature", {{"profile", "uniform"}, {"value", 7.5}}}};
  Case c = parse(j);
  EXPECT_EQ(c.initial.profile, TemperatureProfile::uniform);
  EXPECT_EQ(c.initial.value, 7.5);

  j["initial"] = {{"temperature", {{"profile", "conduction"}}}};
  c = parse(j);
  EXPECT_EQ(c.initial.profile, TemperatureProfile::conduction);
  EXPECT_EQ(c.initial.bottom, 3.0);
  EXPECT_EQ(c.initial.top, 1.0);
}

TEST(CaseFile, DiffusiveUnitsDeriveCoefficients) {
  json j = minimal_case();  // H = 2, dT = 3 - 1 = 2
  j["physics"] = {{"rayleigh", 1e5}, {"prandtl", 0.7}, {"units", "diffusive"}};
  const Case c = parse(j);
  const double h = 2.0, dt = 2.0, ra = 1e5, pr = 0.7;
  EXPECT_EQ(c.physics.units, Units::diffusive);
  EXPECT_EQ(c.physics.rayleigh, ra);
  EXPECT_EQ(c.physics.prandtl, pr);
  EXPECT_DOUBLE_EQ(c.physics.kappa, h * h);
  EXPECT_DOUBLE_EQ(c.physics.nu, pr * h * h);
  EXPECT_DOUBLE_EQ(c.physics.buoyancy, ra * c.physics.nu * c.physics.kappa / (dt * h * h * h));
  EXPECT_DOUBLE_EQ(h * h / c.physics.kappa, 1.0);  // time unit H^2/kappa
  EXPECT_DOUBLE_EQ(c.physics.nu / c.physics.kappa, pr);
  EXPECT_DOUBLE_EQ(c.physics.buoyancy * dt * h * h * h / (c.physics.nu * c.physics.kappa), ra);
  EXPECT_EQ(c.physics.reference_temperature, 2.0);
}

TEST(CaseFile, FreeFallUnitsDeriveCoefficients) {
  json j = minimal_case();
  // Heated from above (dT < 0): |dT| is used, so buoyancy stays positive.
  j["boundaries"]["z_lo"]["temperature"]["fixed"] = 1;
  j["boundaries"]["z_hi"]["temperature"]["fixed"] = 3;
  j["physics"] = {
      {"rayleigh", 1e6}, {"prandtl", 7.0}, {"units", "free_fall"}, {"reference_temperature", 0.5}};
  const Case c = parse(j);
  const double h = 2.0, dt = 2.0, ra = 1e6, pr = 7.0;
  EXPECT_EQ(c.physics.units, Units::free_fall);
  EXPECT_DOUBLE_EQ(c.physics.buoyancy, h / dt);
  EXPECT_DOUBLE_EQ(c.physics.kappa, h * h / std::sqrt(ra * pr));
  EXPECT_DOUBLE_EQ(c.physics.nu, h * h * std::sqrt(pr / ra));
  EXPECT_DOUBLE_EQ(std::sqrt(c.physics.buoyancy * dt * h), h);  // U = H: time unit 1
  EXPECT_DOUBLE_EQ(c.physics.nu / c.physics.kappa, pr);
  EXPECT_DOUBLE_EQ(c.physics.buoyancy * dt * h * h * h / (c.physics.nu * c.physics.kappa), ra);
  EXPECT_EQ(c.physics.reference_temperature, 0.5);
}

TEST(CaseFile, IntegralFloatIsAnInteger) {
  json j = minimal_case();
  j["grid"]["n"] = {16.0, 16, 8};
  j["time"]["steps"] = 1e3;
  const Case c = parse(j);
  EXPECT_EQ(c.n[0], 16);
  EXPECT_EQ(c.time.steps, 1000);
}

TEST(CaseFile, JsonTextIsTheCaseAfterOverridesIndented) {
  const Case c = parse(minimal_case(), {"time.steps=20"});
  const json stored = json::parse(c.json_text);
  EXPECT_EQ(stored["time"]["steps"], 20);
  EXPECT_EQ(stored["name"], "minimal");
  EXPECT_NE(c.json_text.find("\n  \"name\": \"minimal\""), std::string::npos) << c.json_text;
  EXPECT_EQ(c.json_text.find("\"name\""), c.json_text.find('"'));  // key order kept
}

// ---------------------------------------------------------------------------
// grid errors

TEST(CaseFile, NegativeGridSize) {
  json j = minimal_case();
  j["grid"]["n"] = {256, -1, 128};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"expected 3 positive integers, got [256,-1,128]"}));
}

TEST(CaseFile, ZeroGridSize) {
  json j = minimal_case();
  j["grid"]["n"] = {16, 0, 8};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"positive integers", "[16,0,8]"}));
}

TEST(CaseFile, NonIntegerGridSize) {
  json j = minimal_case();
  j["grid"]["n"] = {32.5, 32, 32};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"3 positive integers", "32.5"}));
  j["grid"]["n"] = {"32", 32, 32};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"3 positive integers", "\"32\""}));
}

TEST(CaseFile, GridSizeWrongLength) {
  json j = minimal_case();
  j["grid"]["n"] = {32, 32};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"expected 3 positive integers, got [32,32]"}));
}

TEST(CaseFile, GridThatCannotCoarsen) {
  json j = minimal_case();
  j["pressure"] = {{"solver", "multigrid"}};  // auto picks fft here (x and y periodic), which takes any size
  j["grid"]["n"] = {17, 17, 17};
  EXPECT_TRUE(fails_with(
      j, "/grid/n",
      {"multigrid", "halves each even axis", "4913 cells", "at most 1024", "m*2^k", "[16,16,16]"}));
  j["grid"]["n"] = {96, 96, 33};  // coarsest 3x3x33 = 297 cells: fine
  EXPECT_NO_THROW(parse(j));
  j["grid"]["n"] = {36, 36, 36};  // coarsest 9x9x9 = 729 cells: fine
  EXPECT_NO_THROW(parse(j));
  j["grid"]["n"] = {100, 100, 50};  // coarsest 25x25x25: suggest [96,96,48]
  EXPECT_TRUE(fails_with(j, "/grid/n", {"15625 cells", "[96,96,48]"}));
}

TEST(CaseFile, ExtentNotIncreasing) {
  json j = minimal_case();
  j["grid"]["extent"][0] = {1, 1};
  EXPECT_TRUE(fails_with(j, "/grid/extent/0", {"x0 < x1", "got [1,1]"}));
  j = minimal_case();
  j["grid"]["extent"][2] = {2, 0};
  EXPECT_TRUE(fails_with(j, "/grid/extent/2", {"z0 < z1", "got [2,0]"}));
}

TEST(CaseFile, ExtentWrongShape) {
  json j = minimal_case();
  j["grid"]["extent"] = {{0, 1}, {0, 1}};
  EXPECT_TRUE(fails_with(j, "/grid/extent", {"3 [lo, hi] pairs", "got [[0,1],[0,1]]"}));
  j = minimal_case();
  j["grid"]["extent"][1] = {0, "1"};
  EXPECT_TRUE(fails_with(j, "/grid/extent/1", {"2 numbers", "got [0,\"1\"]"}));
}

TEST(CaseFile, StretchedZMistakesNameTheKey) {
  json j = minimal_case();  // nz = 8, z from 0 to 2
  j["grid"]["z"] = {0, 0.5, 1, 1.5, 2};
  EXPECT_TRUE(fails_with(j, "/grid/z", {"9 increasing numbers from z0 = 0 to z1 = 2", "got [0,0.5,1,1.5,2]"}));
  j["grid"]["z"] = {0, 0.2, 0.4, 0.6, 0.6, 1.2, 1.5, 1.8, 2};
  EXPECT_TRUE(fails_with(j, "/grid/z/4", {"above the face before it (0.6)", "got 0.6"}));
  j["grid"]["z"] = {0.1, 0.3, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2};
  EXPECT_TRUE(fails_with(j, "/grid/z/0", {"z0 = 0 (/grid/extent/2)", "got 0.1"}));
  j["grid"]["z"] = {0, 0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.6, 2};  // 0.2 then 0.4: ratio 2
  EXPECT_TRUE(fails_with(j, "/grid/z", {"ratio of at most 1.5", "cells 5 and 6 of 0.2 and 0.4 (ratio 2)"}));
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", 4}};  // 8 cells: far too wild
  EXPECT_TRUE(fails_with(j, "/grid/z/parameter", {"ratio of at most 1.5", "lower the parameter or add cells"}));
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", -1}};
  EXPECT_TRUE(fails_with(j, "/grid/z/parameter", {"positive number", "got -1"}));
  j["grid"]["z"] = {{"stretching", "cosine"}, {"parameter", 1}};
  EXPECT_TRUE(fails_with(j, "/grid/z/stretching", {"\"tanh\"", "got \"cosine\""}));
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", 1}, {"cluster", "middle"}};
  EXPECT_TRUE(fails_with(j, "/grid/z/cluster", {"\"both\"", "\"bottom\"", "\"top\"", "got \"middle\""}));
  j["grid"]["z"] = "tanh";
  EXPECT_TRUE(fails_with(j, "/grid/z", {"{\"stretching\": \"tanh\", \"parameter\": NUMBER}", "got \"tanh\""}));
  j = minimal_case();
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", 1}};
  j["boundaries"]["z_lo"] = "periodic";
  j["boundaries"]["z_hi"] = "periodic";
  EXPECT_TRUE(fails_with(j, "/grid/z", {"walls at z_lo and z_hi", "periodic"}));
  // The point multigrid takes a uniform z only: the solver is what is wrong (auto, the
  // default, takes the line multigrid).
  j = minimal_case();
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", 1}};
  EXPECT_EQ(parse(j).pressure.solver, "auto");
  j["pressure"] = {{"solver", "multigrid"}};
  EXPECT_TRUE(fails_with(j, "/pressure/solver", {"line solver (\"line_multigrid\" or \"auto\") on a stretched z", "got \"multigrid\""}));
}

// grid.x and grid.y take the stretchings of grid.z (a periodic axis too, its ends meeting
// within the ratio rule); their mistakes name the key.
TEST(CaseFile, StretchedXAndYParseAndTheirMistakesNameTheKey) {
  json j = minimal_case();  // 16 x 16 x 8 on [0, 4] x [0, 4] x [0, 2], x and y periodic
  j["grid"]["x"] = {{"stretching", "tanh"}, {"parameter", 1}};
  std::vector<double> y(17);
  for (int i = 0; i <= 16; ++i) y[i] = 4.0 * i / 16 + 0.02 * std::sin(M_PI * i / 8);  // periodic, mildly uneven
  j["grid"]["y"] = y;
  const Case c = parse(j);
  ASSERT_TRUE(c.stretched(0) && c.stretched(1) && !c.stretched(2));
  EXPECT_EQ(c.axis_faces[0], tanh_faces(16, 0.0, 4.0, 1.0, Cluster::both));
  EXPECT_EQ(c.axis_faces[1], y);
  EXPECT_EQ(c.stretching[1], "explicit faces");
  EXPECT_DOUBLE_EQ(c.centre(0, 3), 0.5 * (c.axis_faces[0][3] + c.axis_faces[0][4]));
  EXPECT_EQ(plan_pressure(c).name(), "direct");  // auto: the eigenbases
  const Case again = parse_case(case_to_json(c).dump(), kSource);  // bouss check --json writes the faces back
  EXPECT_EQ(again.axis_faces[0], c.axis_faces[0]);
  EXPECT_EQ(again.axis_faces[1], c.axis_faces[1]);

  // Clustered towards one end of a periodic x, the last cell meets the first 2.4 times as wide.
  j = minimal_case();
  j["grid"]["x"] = {{"stretching", "tanh"}, {"parameter", 1}, {"cluster", "low"}};
  EXPECT_TRUE(fails_with(j, "/grid/x/parameter", {"adjacent x cells", "ratio of at most 1.5", "cells 15 and 0"}));
  j["boundaries"]["x_lo"] = {{"velocity", "no_slip"}, {"temperature", "insulating"}};
  j["boundaries"]["x_hi"] = {{"velocity", "no_slip"}, {"temperature", "insulating"}};
  EXPECT_TRUE(parse(j).stretched(0)) << "between walls the same faces are smooth enough";
  j = minimal_case();
  j["grid"]["y"] = {{"stretching", "tanh"}, {"parameter", 1}, {"cluster", "bottom"}};
  EXPECT_TRUE(fails_with(j, "/grid/y/cluster", {"\"both\"", "\"low\"", "\"high\"", "got \"bottom\""}));
  j["grid"]["y"] = {0, 1, 2, 4};
  EXPECT_TRUE(fails_with(j, "/grid/y", {"17 increasing numbers from y0 = 0 to y1 = 4 (the y faces)"}));
  y[16] = 4.5;
  j["grid"]["y"] = y;
  EXPECT_TRUE(fails_with(j, "/grid/y/16", {"y1 = 4 (/grid/extent/1)", "got 4.5"}));
  j = minimal_case();
  j["grid"]["n"] = {16, 1, 8};
  j["grid"]["y"] = {{"stretching", "tanh"}, {"parameter", 1}};
  EXPECT_TRUE(fails_with(j, "/grid/y", {"at least 2 y cells", "got 1"}));
  // The multigrids take one spacing along x and y.
  j = minimal_case();
  j["grid"]["x"] = {{"stretching", "tanh"}, {"parameter", 1}};
  j["pressure"] = {{"solver", "line_multigrid"}};
  EXPECT_TRUE(fails_with(j, "/pressure/solver", {"\"direct\" or \"auto\" on a grid stretched along x or y",
                                                 "got \"line_multigrid\""}));
}

// bouss check --json writes a stretched z back as its faces, which read back as the same grid.
TEST(CaseFile, StretchedZWrittenBackReadsTheSame) {
  json j = minimal_case();
  j["grid"]["z"] = {{"stretching", "tanh"}, {"parameter", 1}};
  const Case c = parse(j);
  ASSERT_EQ(c.axis_faces[2].size(), 9u);
  const Case again = parse_case(case_to_json(c).dump(), kSource);
  EXPECT_EQ(again.axis_faces[2], c.axis_faces[2]);
}

// bouss check --json keeps a start from a file and the landing of steps on outputs.
TEST(CaseFile, InitialFromAndLandingWrittenBackReadTheSame) {
  json j = minimal_case();
  j["initial"] = {{"from", "runs/coarse.nc"}, {"record", -2}, {"continue_time", true}};
  j["time"]["land_on_outputs"] = false;
  const Case c = parse(j);
  const Case again = parse_case(case_to_json(c).dump(), kSource);
  ASSERT_TRUE(again.initial.from.has_value());
  EXPECT_EQ(again.initial.from->path, "runs/coarse.nc");
  EXPECT_EQ(again.initial.from->record, -2);
  EXPECT_TRUE(again.initial.from->continue_time);
  EXPECT_FALSE(again.time.land_on_outputs);
}

TEST(CaseFile, TanhFacesClusterTowardsTheChosenWalls) {
  const std::vector<double> both = tanh_faces(16, 1.0, 2.0, 1.2, Cluster::both);
  ASSERT_EQ(both.size(), 17u);
  EXPECT_EQ(both.front(), 1.0);
  EXPECT_EQ(both.back(), 3.0);
  EXPECT_NEAR(both[8], 2.0, 1e-15);  // symmetric about mid-height
  EXPECT_LT(both[1] - both[0], 0.5 * (both[9] - both[8]));
  EXPECT_NEAR(both[1] - both[0], both[16] - both[15], 1e-14);
  const std::vector<double> bottom = tanh_faces(16, 0.0, 1.0, 1.2, Cluster::low);
  const std::vector<double> top = tanh_faces(16, 0.0, 1.0, 1.2, Cluster::high);
  EXPECT_LT(bottom[1] - bottom[0], bottom[16] - bottom[15]);
  EXPECT_GT(top[1] - top[0], top[16] - top[15]);
  for (int k = 0; k <= 16; ++k) EXPECT_NEAR(top[k], 1 - bottom[16 - k], 1e-14);
  EXPECT_LT(largest_stretch_ratio(both).ratio, 1.5);
  EXPECT_GT(largest_stretch_ratio(tanh_faces(8, 0.0, 1.0, 4.0, Cluster::both)).ratio, 1.5);
}

// ---------------------------------------------------------------------------
// keys

TEST(CaseFile, UnknownKeySuggestsNearest) {
  json j = minimal_case();
  j["grid"]["nn"] = 3;
  EXPECT_TRUE(fails_with(j, "/grid/nn", {"unknown key; did you mean \"n\"?"}));
  j = minimal_case();
  j["time"]["stpes"] = 3;
  EXPECT_TRUE(fails_with(j, "/time/stpes", {"did you mean \"steps\"?"}));
}

TEST(CaseFile, UnknownTopLevelKey) {
  json j = minimal_case();
  j["bakend"] = "cpu";
  EXPECT_TRUE(fails_with(j, "/bakend", {"unknown key; did you mean \"backend\"?"}));
  j = minimal_case();
  j["zzzzzz"] = 1;
  EXPECT_TRUE(
      fails_with(j, "/zzzzzz", {"unknown key; expected one of", "\"name\"", "\"backend\""}));
}

TEST(CaseFile, MissingRequiredKey) {
  json j = minimal_case();
  j["physics"].erase("kappa");
  EXPECT_TRUE(fails_with(j, "/physics/kappa", {"missing required key", "positive number"}));
  j = minimal_case();
  j.erase("boundaries");
  EXPECT_TRUE(fails_with(j, "/boundaries", {"missing required key", "object"}));
  j = minimal_case();
  j["boundaries"].erase("y_hi");
  EXPECT_TRUE(fails_with(j, "/boundaries/y_hi", {"missing required key"}));
  j = minimal_case();
  j["boundaries"]["z_lo"].erase("temperature");
  EXPECT_TRUE(fails_with(j, "/boundaries/z_lo/temperature", {"missing", "insulating"}));
}

TEST(CaseFile, EmptyName) {
  json j = minimal_case();
  j["name"] = "";
  EXPECT_TRUE(fails_with(j, "/name", {"expected a non-empty string, got \"\""}));
}

TEST(CaseFile, WrongTypeShowsValue) {
  json j = minimal_case();
  j["physics"]["nu"] = "0.1";
  EXPECT_TRUE(fails_with(j, "/physics/nu", {"expected a positive number, got \"0.1\""}));
  j = minimal_case();
  j["grid"] = json::array({1, 2});
  EXPECT_TRUE(fails_with(j, "/grid", {"expected an object, got [1,2]"}));
}

TEST(CaseFile, LongValuesAreShortened) {
  json j = minimal_case();
  j["description"] = json::array();
  for (int i = 0; i < 100; ++i) j["description"].push_back(i);
  const auto result = fails_with(j, "/description", {"expected a string, got [0,1,2", "..."});
  EXPECT_TRUE(result);
  EXPECT_LT(std::string(result.message()).size(), 150u);
}

TEST(CaseFile, TopLevelNotAnObject) {
  EXPECT_TRUE(fails_with(std::string("[1, 2]"), "/", {"expected a JSON object", "got [1,2]"}));
}

// ---------------------------------------------------------------------------
// physics errors

TEST(CaseFile, PhysicsMixingForms) {
  json j = minimal_case();
  j["physics"]["rayleigh"] = 1e5;
  EXPECT_TRUE(
      fails_with(j, "/physics/rayleigh", {"dimensional", "nondimensional", "mixed", "\"nu\""}));
  j = minimal_case();
  j["physics"] = {{"units", "diffusive"}, {"rayleigh", 1e5}, {"prandtl", 1}, {"kappa", 1}};
  EXPECT_TRUE(fails_with(j, "/physics/kappa", {"\"kappa\" mixed with \"units\""}));
}

TEST(CaseFile, PhysicsWithNeitherForm) {
  json j = minimal_case();
  j["physics"] = json::object();
  EXPECT_TRUE(fails_with(j, "/physics", {"either nu, kappa, buoyancy", "rayleigh", "got {}"}));
}

TEST(CaseFile, BadUnits) {
  json j = minimal_case();
  j["physics"] = {{"rayleigh", 1e5}, {"prandtl", 1}, {"units", "viscous"}};
  EXPECT_TRUE(fails_with(j, "/physics/units",
                         {"expected one of \"diffusive\", \"free_fall\", got \"viscous\""}));
}

TEST(CaseFile, RayleighNeedsFixedDifferingPlates) {
  json j = minimal_case();
  j["physics"] = {{"rayleigh", 1e5}, {"prandtl", 1}, {"units", "diffusive"}};
  j["boundaries"]["z_hi"]["temperature"] = "insulating";
  EXPECT_TRUE(fails_with(j, "/physics/rayleigh",
                         {"fixed, differing temperatures", "z_lo", "z_hi insulating"}));
  j["boundaries"]["z_hi"]["temperature"] = {{"fixed", 3}};
  EXPECT_TRUE(
      fails_with(j, "/physics/rayleigh", {"differing", "z_lo fixed at 3, z_hi fixed at 3"}));
}

TEST(CaseFile, NonPositiveViscosity) {
  json j = minimal_case();
  j["physics"]["nu"] = 0;
  EXPECT_TRUE(fails_with(j, "/physics/nu", {"expected a positive number, got 0"}));
}

// ---------------------------------------------------------------------------
// boundary errors

TEST(CaseFile, UnpairedPeriodicFace) {
  json j = minimal_case();
  j["boundaries"]["y_hi"] = {{"velocity", "no_slip"}, {"temperature", "insulating"}};
  EXPECT_TRUE(fails_with(j, "/boundaries/y_hi", {"\"periodic\" like y_lo", "pairs"}));
  j = minimal_case();
  j["boundaries"]["x_lo"] = {{"velocity", "no_slip"}, {"temperature", "insulating"}};
  EXPECT_TRUE(fails_with(j, "/boundaries/x_hi", {"a wall like x_lo", "pairs", "got \"periodic\""}));
}

TEST(CaseFile, BadVelocityKind) {
  json j = minimal_case();
  j["boundaries"]["z_lo"]["velocity"] = "slip";
  EXPECT_TRUE(fails_with(j, "/boundaries/z_lo/velocity",
                         {"expected one of \"no_slip\", \"free_slip\", got \"slip\""}));
}

TEST(CaseFile, BadFaceForms) {
  json j = minimal_case();
  j["boundaries"]["x_lo"] = "wall";
  EXPECT_TRUE(fails_with(j, "/boundaries/x_lo", {"\"periodic\" or an object", "got \"wall\""}));
  j = minimal_case();
  j["boundaries"]["z_lo"]["temperature"] = {{"fixd", 1}};
  EXPECT_TRUE(fails_with(j, "/boundaries/z_lo/temperature/fixd", {"did you mean \"fixed\"?"}));
  j = minimal_case();
  j["boundaries"]["z_lo"]["temperature"] = 1;
  EXPECT_TRUE(
      fails_with(j, "/boundaries/z_lo/temperature", {"\"conducting\" or {\"fixed\"", "got 1"}));
}

// ---------------------------------------------------------------------------
// numbers, JSON syntax, files

TEST(CaseFile, NonFiniteNumber) {
  std::string text = minimal_case().dump();
  const std::string nu = "\"nu\":1";
  text.replace(text.find(nu), nu.size(), "\"nu\":1e999");
  EXPECT_TRUE(fails_with(text, "/physics/nu", {"expected a finite number, got 1e999"}));

  text = minimal_case().dump();
  const std::string extent = "[0,2]]";
  text.replace(text.find(extent), extent.size(), "[0,-1e400]]");
  EXPECT_TRUE(fails_with(text, "/grid/extent/2/1", {"finite number", "-1e400"}));
}

TEST(CaseFile, DuplicateKey) {
  std::string text = minimal_case().dump();
  const std::string steps = "\"steps\":10";
  text.replace(text.find(steps), steps.size(), "\"steps\":10,\"steps\":20");
  EXPECT_TRUE(fails_with(text, "/time/steps", {"duplicate key"}));
}

TEST(CaseFile, MalformedJsonGivesLineAndColumn) {
  const std::string text = "{\n  \"name\": \"x\",\n  \"grid\": ,\n}";
  try {
    parse_case(text, kSource);
    FAIL() << "no error";
  } catch (const CaseError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("cases/test.json: malformed JSON at line 3, column 11: ", 0), 0u)
        << message;
    EXPECT_NE(message.find("unexpected ','"), std::string::npos) << message;
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  }
}

TEST(CaseFile, TruncatedJson) {
  try {
    parse_case("{\"name\": \"x\"", kSource);
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed JSON at line 1, column 13"), std::string::npos)
        << e.what();
  }
}

TEST(CaseFile, MissingFile) {
  const std::string path = "/nonexistent-dir/case.json";
  try {
    load_case(path);
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot read case file: No such file or directory");
  }
}

TEST(CaseFile, LoadsFromFileNamingItInErrors) {
  const std::string path = ::testing::TempDir() + "bouss_test_case.json";
  {
    std::ofstream out(path);
    out << minimal_case().dump(2);
  }
  const Case c = load_case(path, {"backend=cpu"});
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.backend, "cpu");
  try {
    load_case(path, {"time.steps=0"});
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": /time/steps: expected a positive integer, got 0");
  }
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// other sections

TEST(CaseFile, TimeNeedsStepsOrEnd) {
  json j = minimal_case();
  j["time"] = {{"cfl", 0.5}};
  EXPECT_TRUE(fails_with(j, "/time", {"at least one of \"steps\" and \"end\"", "{\"cfl\":0.5}"}));
  j["time"] = {{"end", 1.0}, {"cfl", 2.5}};
  EXPECT_TRUE(fails_with(j, "/time/cfl", {"(0, 2]", "got 2.5"}));
}

TEST(CaseFile, LockProfileAcrossX) {
  json j = minimal_case();  // x from 0 to 4 in 16 cells
  j["initial"] = {{"temperature", {{"profile", "lock"}, {"left", 1.0}, {"right", -1.0}}}};
  const Case c = parse(j);
  EXPECT_EQ(c.initial.profile, TemperatureProfile::lock);
  EXPECT_EQ(c.initial.position, 2.0) << "the middle of x by default";
  EXPECT_EQ(c.initial.thickness, 0.25) << "one cell by default";
  j["initial"]["temperature"]["position"] = 4.0;
  EXPECT_TRUE(fails_with(j, "/initial/temperature/position", {"inside the domain's x extent", "got 4"}));
  j["initial"]["temperature"]["position"] = 1.0;
  j["initial"]["temperature"]["thickness"] = 0;
  EXPECT_TRUE(fails_with(j, "/initial/temperature/thickness", {"a positive number", "got 0"}));
  j["initial"]["temperature"].erase("thickness");
  j["initial"]["temperature"].erase("right");
  EXPECT_TRUE(fails_with(j, "/initial/temperature/right", {"missing required key"}));
}

TEST(CaseFile, PrecisionAndTheToleranceSinglePrecisionReaches) {
  json j = minimal_case();
  j["precision"] = "quad";
  EXPECT_TRUE(fails_with(j, "/precision", {"expected one of \"double\", \"single\", got \"quad\""}));
  // Single precision with the default tolerance (1e-8): below float's round-off floor.
  j["precision"] = "single";
  EXPECT_TRUE(fails_with(j, "/pressure/tolerance",
                         {"expected at least 1e-06 in a single-precision run", "got 1e-08"}));
  j["pressure"] = {{"tolerance", 1e-4}};
  const Case c = parse(j);
  EXPECT_EQ(c.precision, Precision::single_precision);
  EXPECT_EQ(c.pressure.tolerance, 1e-4);
  // The same tolerance in double is fine.
  j["precision"] = "double";
  j["pressure"] = {{"tolerance", 1e-12}};
  EXPECT_EQ(parse(j).precision, Precision::double_precision);
}

TEST(CaseFile, BadBackend) {
  json j = minimal_case();
  j["backend"] = "opencl";
  EXPECT_TRUE(
      fails_with(j, "/backend", {"expected one of \"auto\", \"cuda\", \"cpu\", got \"opencl\""}));
}

TEST(CaseFile, BadOutputFields) {
  json j = minimal_case();
  j["output"] = {{"fields", {"T", "q"}}};
  EXPECT_TRUE(
      fails_with(j, "/output/fields/1", {"one of \"T\", \"u\", \"v\", \"w\", \"p\"", "got \"q\""}));
  j["output"] = {{"fields", {"T", "T"}}};
  EXPECT_TRUE(fails_with(j, "/output/fields/1", {"distinct", "got \"T\""}));
  j["output"] = {{"fields", json::array()}};
  EXPECT_TRUE(fails_with(j, "/output/fields", {"at least one field"}));
}

TEST(CaseFile, OutputStreamsList) {
  json j = minimal_case();
  j["output"] = json::parse(R"([
    {"file": "out/full.nc", "interval": 0.5},
    {"file": "out/mid.nc", "interval_steps": 1, "fields": ["T", "w_c"], "region": {"z": 0.5}, "precision": "float",
     "compression": {"deflate": 4, "significant_digits": 3}},
    {"file": "out/prof.nc", "interval_steps": 10, "profiles": true, "diagnostics": true, "diagnostics_interval_steps": 5},
    {"file": "out/side.nc", "fields": ["u"], "region": {"y": 1}, "profiles": ["T_mean", "wT_mean"]}
  ])");
  const Case c = parse(j);
  ASSERT_EQ(c.output.streams.size(), 4u);
  const auto& s = c.output.streams;
  EXPECT_EQ(s[0].fields, (std::vector<std::string>{"T", "u", "v", "w", "p"}));
  EXPECT_FALSE(s[0].diagnostics) << "an explicit holder takes the series from the first stream";
  EXPECT_EQ(s[1].region.axis, 2);
  // minimal_case: z from 0 to 2 in 8 cells; 0.5 lies on the face between cells 1 and 2: the upper.
  EXPECT_EQ(s[1].region.index, 2);
  EXPECT_EQ(s[1].compression.deflate, 4);
  EXPECT_TRUE(s[1].compression.shuffle);
  EXPECT_EQ(s[1].compression.significant_digits, 3);
  EXPECT_TRUE(s[2].fields.empty()) << "profiles alone unless fields are asked for";
  EXPECT_EQ(s[2].profiles, profile_names());
  EXPECT_TRUE(s[2].diagnostics);
  EXPECT_EQ(c.output.diagnostics_interval_steps, 5);
  EXPECT_EQ(s[3].region.axis, 1);
  EXPECT_EQ(s[3].region.index, 4);  // y = 1 in cells of 0.25
  EXPECT_EQ(s[3].profiles, (std::vector<std::string>{"T_mean", "wT_mean"}));
  EXPECT_EQ(c.output.series_stream(), &s[2]);
  // The filled-in case (bouss check --json) reads back as the same streams.
  const Case again = parse_case(case_to_json(c).dump(), "again.json");
  ASSERT_EQ(again.output.streams.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(again.output.streams[i].file, s[i].file);
    EXPECT_EQ(again.output.streams[i].fields, s[i].fields);
    EXPECT_EQ(again.output.streams[i].profiles, s[i].profiles);
    EXPECT_EQ(again.output.streams[i].region.index, s[i].region.index);
    EXPECT_EQ(again.output.streams[i].region.axis, s[i].region.axis);
    EXPECT_EQ(again.output.streams[i].compression.significant_digits, s[i].compression.significant_digits);
    EXPECT_EQ(again.output.streams[i].diagnostics, s[i].diagnostics);
  }
  EXPECT_EQ(again.output.diagnostics_interval_steps, 5);
  // The single-object form is one stream holding the series; [] is no output.
  j["output"] = {{"file", "a.nc"}, {"fields", {"T"}}};
  EXPECT_TRUE(parse(j).output.streams.at(0).diagnostics);
  j["output"] = json::array();
  EXPECT_TRUE(parse(j).output.streams.empty());
}

// "average": true or {"every_steps", "moments"}; it needs a record interval; the filled-in
// case reads back with it; bad values are one line each at their path.
TEST(CaseFile, AveragedStreams) {
  json j = minimal_case();
  j["output"] = json::parse(R"([
    {"file": "out/a.nc", "interval": 0.5},
    {"file": "out/m.nc", "interval": 2, "fields": ["T", "w_c"], "profiles": true, "average": true},
    {"file": "out/c.nc", "interval_steps": 50, "fields": ["T"], "region": {"z": 0.5},
     "average": {"every_steps": 3, "moments": ["w_c*T", "T*T"]}}
  ])");
  const Case c = parse(j);
  const auto& s = c.output.streams;
  EXPECT_FALSE(s[0].average.enabled);
  EXPECT_TRUE(s[1].average.enabled);
  EXPECT_EQ(s[1].average.every_steps, 1);
  EXPECT_TRUE(s[1].average.moments.empty());
  EXPECT_TRUE(s[2].average.enabled);
  EXPECT_EQ(s[2].average.every_steps, 3);
  EXPECT_EQ(s[2].average.moments, (std::vector<std::string>{"w_c*T", "T*T"}));
  EXPECT_EQ(moment_variable("w_c*T"), "w_c_T_covariance");
  EXPECT_EQ(moment_variable("T*T"), "T_variance");
  const Case again = parse_case(case_to_json(c).dump(), "again.json");
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(again.output.streams[i].average.enabled, s[i].average.enabled);
    EXPECT_EQ(again.output.streams[i].average.every_steps, s[i].average.every_steps);
    EXPECT_EQ(again.output.streams[i].average.moments, s[i].average.moments);
  }
  auto with = [&](const char* text) {
    j["output"] = json::parse(text);
    return j;
  };
  EXPECT_TRUE(fails_with(with(R"({"file": "a.nc", "average": true})"), "/output/average",
                         {"needs \"interval\" or \"interval_steps\""}));
  EXPECT_TRUE(fails_with(with(R"({"file": "a.nc", "interval": 1, "average": 5})"), "/output/average",
                         {"true, false or an object", "got 5"}));
  EXPECT_TRUE(fails_with(with(R"({"file": "a.nc", "interval": 1, "average": {"moments": ["x*T"]}})"),
                         "/output/average/moments/0", {"\"w_c*T\"", "got \"x*T\""}));
  EXPECT_TRUE(fails_with(with(R"({"file": "a.nc", "interval": 1, "average": {"every": 2}})"), "/output/average/every",
                         {"unknown key"}));
  EXPECT_TRUE(fails_with(with(R"({"file": "a.nc", "interval": 1, "average": {"every_steps": 0}})"),
                         "/output/average/every_steps", {"positive"}));
}

TEST(CaseFile, BadOutputStreams) {
  json j = minimal_case();
  auto with = [&](const char* text) {
    j["output"] = json::parse(text);
    return j;
  };
  EXPECT_TRUE(fails_with(with(R"(3)"), "/output", {"an object (one output stream) or an array of them"}));
  EXPECT_TRUE(fails_with(with(R"([{"file": "a.nc"}, {"fields": ["T"]}])"), "/output/1/file", {"missing required key"}));
  EXPECT_TRUE(fails_with(with(R"([{"file": "a.nc"}, {"file": "./a.nc"}])"), "/output/1/file",
                         {"a file of its own", "an earlier stream writes"}));
  EXPECT_TRUE(fails_with(with(R"([{"file": "a.nc", "diagnostics": true}, {"file": "b.nc", "diagnostics": true}])"),
                         "/output/1/diagnostics", {"one stream"}));
  EXPECT_TRUE(fails_with(with(R"([{"file": "a.nc"}, {"file": "b.nc", "diagnostics_interval_steps": 2}])"),
                         "/output/1/diagnostics_interval_steps", {"does not hold the diagnostics series"}));
  EXPECT_TRUE(fails_with(with(R"({"region": {"z": 2.5}})"), "/output/region/z",
                         {"a coordinate inside the domain, 0 <= z <= 2", "got 2.5"}));
  EXPECT_TRUE(fails_with(with(R"({"region": {"z": 0.5, "y": 0.5}})"), "/output/region", {"one of \"x\", \"y\", \"z\""}));
  EXPECT_TRUE(fails_with(with(R"({"region": {"q": 0.5}})"), "/output/region/q", {"unknown key"}));
  EXPECT_TRUE(fails_with(with(R"({"region": {"z": 0.5}, "profiles": true})"), "/output/profiles",
                         {"whole height", "a stream of their own"}));
  EXPECT_TRUE(fails_with(with(R"({"profiles": ["T_mean", "T_max"]})"), "/output/profiles/1", {"\"T_rms\"", "got \"T_max\""}));
  EXPECT_TRUE(fails_with(with(R"({"compression": {"deflate": 0}})"), "/output/compression/deflate", {"from 1 to 9", "got 0"}));
  EXPECT_TRUE(fails_with(with(R"({"compression": {"level": 4}})"), "/output/compression/level", {"unknown key"}));
  EXPECT_TRUE(fails_with(with(R"({"precision": "float", "compression": {"deflate": 1, "significant_digits": 8}})"),
                         "/output/compression/significant_digits", {"1 to 7 (float)", "got 8"}));
  EXPECT_TRUE(fails_with(with(R"({"fields": [], "profiles": []})"), "/output/fields", {"at least one field or profile"}));
}

TEST(CaseFile, EmptyOutputFileMeansNoOutput) {
  json j = minimal_case();
  j["output"] = {{"file", ""}};
  EXPECT_TRUE(parse(j).output.streams.empty());
}

TEST(CaseFile, BadPressureSettings) {
  json j = minimal_case();
  j["pressure"] = {{"solver", "jacobi"}};
  EXPECT_TRUE(fails_with(j, "/pressure/solver", {"expected one of \"direct\", \"line_multigrid\", \"multigrid\", \"line_pcg\", \"auto\", got \"jacobi\""}));
  j["pressure"] = {{"tolerance", 1}};
  EXPECT_TRUE(fails_with(j, "/pressure/tolerance", {"(0, 1)", "got 1"}));
  j["pressure"] = {{"pre_sweeps", 0}, {"post_sweeps", 0}};
  EXPECT_TRUE(fails_with(j, "/pressure", {"pre_sweeps + post_sweeps > 0"}));
  j["pressure"] = {{"max_cycles", 3000000000LL}};
  EXPECT_TRUE(fails_with(j, "/pressure/max_cycles", {"no larger than 2147483647"}));
}

TEST(CaseFile, BadInitialCondition) {
  json j = minimal_case();
  j["initial"] = {{"temperature", {{"profile", "linear"}, {"bottom", 1}}}};
  EXPECT_TRUE(fails_with(j, "/initial/temperature/top", {"missing required key"}));
  j["initial"] = {{"temperature", {{"profile", "uniform"}, {"value", 1}, {"top", 1}}}};
  EXPECT_TRUE(fails_with(j, "/initial/temperature/top", {"unknown key"}));
  j["initial"] = {{"perturbation", {{"amplitude", -0.1}}}};
  EXPECT_TRUE(fails_with(j, "/initial/perturbation/amplitude", {"non-negative", "got -0.1"}));
  j["initial"] = {{"perturbation", {{"seed", -1}}}};
  EXPECT_TRUE(fails_with(j, "/initial/perturbation/seed", {"non-negative integer", "got -1"}));
  j = minimal_case();
  j["boundaries"]["z_lo"]["temperature"] = "insulating";
  j["initial"] = {{"temperature", {{"profile", "conduction"}}}};
  EXPECT_TRUE(
      fails_with(j, "/initial/temperature/profile", {"fixed temperatures", "z_lo insulating"}));
}

// ---------------------------------------------------------------------------
// overrides

TEST(CaseFile, OverridesSetValues) {
  const Case c = parse(minimal_case(), {"time.steps=20", "grid.n=[32,32,16]", "backend=cpu"});
  EXPECT_EQ(c.time.steps, 20);
  EXPECT_EQ(c.n, (std::array<int, 3>{32, 32, 16}));
  EXPECT_EQ(c.backend, "cpu");
}

TEST(CaseFile, OverrideIndexesArrays) {
  const Case c = parse(minimal_case(), {"grid.n.2=4", "grid.extent.2.1=3"});
  EXPECT_EQ(c.n, (std::array<int, 3>{16, 16, 4}));
  EXPECT_EQ(c.extent[2][1], 3.0);
}

TEST(CaseFile, OverrideCreatesObjects) {
  const Case c = parse(minimal_case(), {"output.interval=0.25", "pressure.tolerance=1e-4"});
  EXPECT_EQ(c.output.streams.at(0).interval, 0.25);
  EXPECT_EQ(c.pressure.tolerance, 1e-4);
  // A bare empty value is the empty string: no output.
  EXPECT_TRUE(parse(minimal_case(), {"output.file="}).output.streams.empty());
}

TEST(CaseFile, OverriddenValuesAreValidated) {
  EXPECT_TRUE(fails_with(minimal_case(), "/grid/n", {"3 positive integers"}, {"grid.n.2=-8"}));
  EXPECT_TRUE(fails_with(minimal_case(), "/grid/nn", {"did you mean \"n\"?"}, {"grid.nn=8"}));
  EXPECT_TRUE(
      fails_with(minimal_case(), "/physics/nu", {"finite number", "1e999"}, {"physics.nu=1e999"}));
}

TEST(CaseFile, MalformedOverride) {
  for (const std::string bad : {"time.steps", "=5", "time..steps=5", ".steps=5"}) {
    try {
      parse(minimal_case(), {bad});
      ADD_FAILURE() << "no error for " << bad;
    } catch (const CaseError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string(kSource) + ": --set \"" + bad + "\": expected key.path=VALUE");
    }
  }
}

TEST(CaseFile, OverrideIntoWrongContainer) {
  try {
    parse(minimal_case(), {"grid.n.3=4"});
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_EQ(std::string(e.what()), std::string(kSource) +
                                         ": --set \"grid.n.3=4\": expected an index below 3 "
                                         "into the array at /grid/n, got \"3\"");
  }
  try {
    parse(minimal_case(), {"time.steps.x=4"});
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("expected an object or array at /time/steps"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

TEST(CaseFile, MultigridOptionsParseAndDefault) {
  const Case defaults = parse(minimal_case());
  EXPECT_FALSE(defaults.pressure.fmg);
  EXPECT_FALSE(defaults.pressure.mixed_precision.has_value()) << "unset: the backend decides";
  EXPECT_TRUE(defaults.pressure.cuda_graphs);
  EXPECT_DOUBLE_EQ(defaults.pressure.omega, 1.25);
  EXPECT_FALSE(defaults.pressure.cpu_coarse_cells.has_value());
  json j = minimal_case();
  j["pressure"] = json::parse(
      R"({"fmg": true, "mixed_precision": false, "cuda_graphs": false, "omega": 1.1, "cpu_coarse_cells": 4096})");
  const Case c = parse(j);
  EXPECT_TRUE(c.pressure.fmg);
  EXPECT_EQ(c.pressure.mixed_precision, std::optional<bool>(false));
  EXPECT_FALSE(c.pressure.cuda_graphs);
  EXPECT_DOUBLE_EQ(c.pressure.omega, 1.1);
  EXPECT_EQ(c.pressure.cpu_coarse_cells, std::optional<long>(4096));
}

TEST(CaseFile, MultigridOptionsRejectBadValues) {
  json j = minimal_case();
  j["pressure"] = json::parse(R"({"fmg": "yes"})");
  EXPECT_TRUE(fails_with(j.dump(), "/pressure/fmg", {"expected true or false", "\"yes\""}));
  j["pressure"] = json::parse(R"({"omega": 2.5})");
  EXPECT_TRUE(fails_with(j.dump(), "/pressure/omega", {"(0, 2)"}));
  j["pressure"] = json::parse(R"({"cpu_coarse_cells": -1})");
  EXPECT_TRUE(fails_with(j.dump(), "/pressure/cpu_coarse_cells", {"expected"}));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

TEST(CaseFile, ConductingWallsNeedFixedPlatesAndASideFace) {
  json j = minimal_case();
  j["boundaries"]["x_lo"] = json::parse(R"({"velocity": "no_slip", "temperature": "conducting"})");
  j["boundaries"]["x_hi"] = j["boundaries"]["x_lo"];
  EXPECT_EQ(parse(j).faces[0].temperature, TemperatureBC::conducting);
  j["boundaries"]["z_hi"] = json::parse(R"({"velocity": "no_slip", "temperature": "insulating"})");
  EXPECT_TRUE(fails_with(j, "/boundaries/x_lo/temperature", {"fixed temperatures on z_lo and z_hi"}));
  j = minimal_case();
  j["boundaries"]["z_lo"] = json::parse(R"({"velocity": "no_slip", "temperature": "conducting"})");
  EXPECT_TRUE(fails_with(j, "/boundaries/z_lo/temperature", {"side walls"}));
}

TEST(CaseFile, ModePerturbationParsesAndRejectsBadModes) {
  json j = minimal_case();
  j["initial"] = json::parse(R"({"perturbation": {"amplitude": 1e-5, "shape": "mode", "mode": [0.5, 2]}})");
  const Case c = parse(j);
  EXPECT_EQ(c.initial.perturbation_shape, PerturbationShape::mode);
  EXPECT_DOUBLE_EQ(c.initial.mode[0], 0.5);
  EXPECT_DOUBLE_EQ(c.initial.mode[1], 2.0);
  j["initial"]["perturbation"]["mode"] = json::parse("[1]");
  EXPECT_TRUE(fails_with(j, "/initial/perturbation/mode", {"2 non-negative numbers"}));
  j["initial"] = json::parse(R"({"perturbation": {"mode": [1, 0]}})");
  EXPECT_TRUE(fails_with(j, "/initial/perturbation/shape", {"\"mode\""}));
  j["initial"] = json::parse(R"({"perturbation": {"shape": "spiral"}})");
  EXPECT_TRUE(fails_with(j, "/initial/perturbation/shape", {"random", "mode"}));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

TEST(CaseFile, CheckpointSectionParsesAndDefaults) {
  const Case defaults = parse(minimal_case());
  EXPECT_FALSE(defaults.checkpoint.enabled());
  EXPECT_EQ(defaults.checkpoint.file, "");
  EXPECT_EQ(defaults.checkpoint.keep, 2);
  json j = minimal_case();
  j["checkpoint"] = json::parse(R"({"interval": 2.5, "interval_steps": 100, "file": "ckpt/rb", "keep": 5})");
  const Case c = parse(j);
  EXPECT_TRUE(c.checkpoint.enabled());
  EXPECT_EQ(c.checkpoint.interval, 2.5);
  EXPECT_EQ(c.checkpoint.interval_steps, 100);
  EXPECT_EQ(c.checkpoint.file, "ckpt/rb");
  EXPECT_EQ(c.checkpoint.keep, 5);
  // Steps alone enable checkpoints; the stem then defaults to the output file's ("" kept).
  j["checkpoint"] = json::parse(R"({"interval_steps": 10})");
  const Case by_steps = parse(j);
  EXPECT_TRUE(by_steps.checkpoint.enabled());
  EXPECT_FALSE(by_steps.checkpoint.interval.has_value());
  EXPECT_EQ(by_steps.checkpoint.file, "");
  EXPECT_EQ(by_steps.output.streams.at(0).file, "output/minimal.nc");
}

TEST(CaseFile, CheckpointSectionRejectsBadValues) {
  json j = minimal_case();
  j["checkpoint"] = json::parse(R"({"intreval": 1})");
  EXPECT_TRUE(fails_with(j, "/checkpoint/intreval", {"unknown key; did you mean \"interval\"?"}));
  j["checkpoint"] = json::parse(R"({"interval": 0})");
  EXPECT_TRUE(fails_with(j, "/checkpoint/interval", {"expected a positive number, got 0"}));
  j["checkpoint"] = json::parse(R"({"interval_steps": 2.5})");
  EXPECT_TRUE(fails_with(j, "/checkpoint/interval_steps", {"expected a positive integer, got 2.5"}));
  j["checkpoint"] = json::parse(R"({"keep": 0})");
  EXPECT_TRUE(fails_with(j, "/checkpoint/keep", {"expected a positive integer, got 0"}));
  j["checkpoint"] = json::parse(R"({"file": 7})");
  EXPECT_TRUE(fails_with(j, "/checkpoint/file", {"expected a string, got 7"}));
  j["checkpoint"] = json::array();
  EXPECT_TRUE(fails_with(j, "/checkpoint", {"expected an object, got []"}));
  j = minimal_case();
  j["chekpoint"] = json::object();
  EXPECT_TRUE(fails_with(j, "/chekpoint", {"did you mean \"checkpoint\"?"}));
}

// A case without output still has a home for its checkpoints, named from the case: the
// folder its output would go to (before, such a case was refused, and a signal's checkpoint
// of a run without output went to a hidden ./.checkpoint.N.nc).
TEST(CaseFile, CheckpointsWithoutOutputGoWhereTheOutputWouldGo) {
  json j = minimal_case();
  j["output"] = {{"file", ""}};
  j["checkpoint"] = {{"interval", 1.0}};
  EXPECT_EQ(checkpoint_stem(parse(j)), "output/minimal");
  j["output"] = json::array();
  EXPECT_EQ(checkpoint_stem(parse(j)), "output/minimal");
  j["checkpoint"]["file"] = "ckpt/rb";
  EXPECT_EQ(checkpoint_stem(parse(j)), "ckpt/rb");
  j["output"] = {{"file", "out/x.nc"}};
  j["checkpoint"].erase("file");
  EXPECT_EQ(checkpoint_stem(parse(j)), "out/x");
}

TEST(CaseFile, PressureMaxFailures) {
  EXPECT_EQ(parse(minimal_case()).pressure.max_failures, 3);
  json j = minimal_case();
  j["pressure"] = {{"max_failures", 1}};
  EXPECT_EQ(parse(j).pressure.max_failures, 1);
  j["pressure"] = {{"max_failures", 0}};
  EXPECT_TRUE(fails_with(j, "/pressure/max_failures", {"expected a positive integer, got 0"}));
  j["pressure"] = {{"max_failures", 1.5}};
  EXPECT_TRUE(fails_with(j, "/pressure/max_failures", {"expected a positive integer, got 1.5"}));
  j["pressure"] = {{"max_failure", 2}};
  EXPECT_TRUE(fails_with(j, "/pressure/max_failure", {"did you mean \"max_failures\"?"}));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

// The message check_grid_shape throws, or "" when the shape is accepted.
std::string grid_shape_error(const std::array<int, 3>& n, const std::array<bool, 3>& periodic) {
  try {
    check_grid_shape(n, periodic, "--n");
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

TEST(GridShape, SameRulesOutsideCaseFiles) {
  const std::array<bool, 3> walls{false, false, false}, periodic{true, true, true};
  EXPECT_EQ(grid_shape_error({0, 0, 0}, walls), "--n: expected 3 positive integers, got [0,0,0]");
  const std::string coarsen = grid_shape_error({17, 17, 17}, periodic);
  EXPECT_EQ(coarsen.rfind("--n: expected a grid the multigrid can coarsen", 0), 0u) << coarsen;
  EXPECT_NE(coarsen.find("4913 cells"), std::string::npos) << coarsen;
  EXPECT_NE(coarsen.find("e.g. [16,16,16]"), std::string::npos) << coarsen;
  EXPECT_EQ(grid_shape_error({64, 64, 32}, walls), "");
  EXPECT_EQ(grid_shape_error({64, 1, 32}, {false, true, false}), "");
  EXPECT_NE(grid_shape_error({64, 1, 32}, walls).find("with y not periodic"), std::string::npos);
  EXPECT_NE(grid_shape_error({65536, 1, 2}, periodic).find("at most 65535 cells per axis"), std::string::npos);
}

TEST(CaseFile, OneCellAxisMustBePeriodic) {
  json j = minimal_case();  // x and y periodic, z between plates
  j["grid"]["n"] = {32, 1, 16};  // a 2D run in x-z
  EXPECT_EQ(parse(j).n, (std::array<int, 3>{32, 1, 16}));
  j["grid"]["n"] = {32, 16, 1};
  EXPECT_TRUE(fails_with(j, "/grid/n",
                         {"expected a periodic axis wherever n is 1", "2D run's unused direction",
                          "got [32,16,1] with z not periodic"}));
  j = minimal_case();
  j["grid"]["n"] = {1, 16, 8};
  j["boundaries"]["x_lo"] = {{"velocity", "free_slip"}, {"temperature", "insulating"}};
  j["boundaries"]["x_hi"] = j["boundaries"]["x_lo"];
  EXPECT_TRUE(fails_with(j, "/grid/n", {"got [1,16,8] with x not periodic"}));
}

TEST(CaseFile, AxisLimitIsTheCudaLaunchGrid) {
  json j = minimal_case();
  j["grid"]["n"] = {65536, 1, 2};  // coarsens to 1x1x1, but has more cells than a launch grid's z
  EXPECT_TRUE(fails_with(j, "/grid/n", {"expected at most 65535 cells per axis", "got [65536,1,2]"}));
  j["grid"]["n"] = {16, 3000000000LL, 8};  // beyond an int: still the same rule
  EXPECT_TRUE(fails_with(j, "/grid/n", {"at most 65535 cells per axis", "got [16,3000000000,8]"}));
  j["grid"]["n"] = {16, 1e12, 8};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"at most 65535 cells per axis"}));
  j["grid"]["n"] = {-3000000000LL, 16, 8};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"expected 3 positive integers, got [-3000000000,16,8]"}));
  // The suggested size is inside the limit: 57344 = 7*2^13, not 65536 = 2^16.
  j["pressure"] = {{"solver", "multigrid"}};
  j["grid"]["n"] = {65535, 16, 8};
  EXPECT_TRUE(fails_with(j, "/grid/n", {"multigrid can coarsen", "e.g. [57344,16,8]"}));
  j["grid"]["n"] = {57344, 2, 2};
  EXPECT_NO_THROW(parse(j));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

TEST(CaseFile, CellSizeMustBeNormalWithFiniteInverseSquare) {
  json j = minimal_case();  // 8 cells in z
  j["grid"]["extent"][2] = {0, 1e-300};  // h = 1.25e-301: normal, but 1/h^2 overflows
  EXPECT_TRUE(fails_with(j, "/grid/extent/2", {"z cell size", "normal number with 1/h^2 finite",
                                               "got [0,1e-300]", "h = 1.25e-301 wide (1/h^2 = inf)"}));
  j["grid"]["extent"][2] = {0, 1e-310};  // subnormal length: h subnormal too
  EXPECT_TRUE(fails_with(j, "/grid/extent/2", {"z cell size", "(1/h^2 = inf)"}));
  j["grid"]["extent"][0] = {-1.7e308, 1.7e308};  // each end finite, the length is not
  EXPECT_TRUE(fails_with(j, "/grid/extent/0", {"x cell size", "h = inf wide (1/h^2 = 0)"}));
  // Small boxes whose 1/h^2 is finite are fine: h = 1e-150/16.
  j = minimal_case();
  j["grid"]["extent"][1] = {0, 1e-150};
  EXPECT_EQ(parse(j).spacing(1), 1e-150 / 16);
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

// minimal_case() in the rayleigh/prandtl form: H = 2, plates at 3 and 1 (dT = 2).
json rayleigh_case(double rayleigh, double prandtl, const std::string& units) {
  json j = minimal_case();
  j["physics"] = {{"rayleigh", rayleigh}, {"prandtl", prandtl}, {"units", units}};
  return j;
}

TEST(CaseFile, DerivedCoefficientsThatUnderflowNameTheKey) {
  // Diffusive units: nu = Pr H^2.
  EXPECT_TRUE(fails_with(rayleigh_case(1e5, 1e-320, "diffusive"), "/physics/prandtl",
                         {"expected a value for which nu is a finite normal number", "got 1e-320",
                          "which with H = 2 gives nu = 4e-320 (subnormal)"}));
  json j = rayleigh_case(1e5, 5e-324, "diffusive");  // the smallest double
  j["grid"]["extent"][2] = {0, 0.5};                 // nu = 5e-324 / 4 rounds to 0
  EXPECT_TRUE(fails_with(j, "/physics/prandtl", {"gives nu = 0 (underflow)"}));
  // buoyancy = Ra Pr H / dT: Ra is the input furthest from 1.
  EXPECT_TRUE(fails_with(rayleigh_case(1e-310, 1, "diffusive"), "/physics/rayleigh",
                         {"with Pr = 1, H = 2, dT = 2 gives buoyancy = 1e-310 (subnormal)"}));
  // Free fall: kappa = H^2 / sqrt(Ra Pr) = 1e-308 with H = 1; Ra Pr itself is beyond a double.
  j = rayleigh_case(1e308, 1e308, "free_fall");
  j["grid"]["extent"][2] = {0, 1};
  EXPECT_TRUE(fails_with(j, "/physics/rayleigh",
                         {"kappa is a finite normal number", "with Pr = 1e+308, H = 1 gives kappa = 1e-308 (subnormal)"}));
}

TEST(CaseFile, DerivedCoefficientsThatOverflowNameTheKey) {
  // Free fall: buoyancy = H / dT, with dT = 1e-320 between the plates.
  json j = rayleigh_case(1e5, 1, "free_fall");
  j["boundaries"]["z_lo"]["temperature"]["fixed"] = 1e-320;
  j["boundaries"]["z_hi"]["temperature"]["fixed"] = 0;
  EXPECT_TRUE(fails_with(j, "/boundaries/z_lo/temperature/fixed",
                         {"got 1e-320 (dT = 1e-320 with z_hi fixed at 0)", "gives buoyancy = inf (overflow)"}));
  // Diffusive: kappa = H^2, with H = 1e200.
  j = rayleigh_case(1e5, 1, "diffusive");
  j["grid"]["extent"][2] = {0, 1e200};
  EXPECT_TRUE(fails_with(j, "/grid/extent/2", {"(H = 1e+200)", "gives kappa = inf (overflow)"}));
  // A plate difference beyond a double.
  j = rayleigh_case(1e5, 1, "free_fall");
  j["boundaries"]["z_lo"]["temperature"]["fixed"] = 1e308;
  j["boundaries"]["z_hi"]["temperature"]["fixed"] = -1.5e308;
  EXPECT_TRUE(fails_with(j, "/boundaries/z_hi/temperature/fixed",
                         {"difference from the other plate's is finite", "with z_lo fixed at 1e+308"}));
}

TEST(CaseFile, LargeRayleighDoesNotOverflowOnTheWay) {
  // buoyancy = Ra nu kappa / (dT H^3) = Ra Pr H / dT = 1e308: finite, though Ra nu kappa
  // (1e300 * 4e8 * 4) is not a double.
  const Case c = parse(rayleigh_case(1e300, 1e8, "diffusive"));
  const double h = 2.0, dt = 2.0;
  EXPECT_DOUBLE_EQ(c.physics.buoyancy, 1e308);
  EXPECT_DOUBLE_EQ(c.physics.nu / c.physics.kappa, 1e8);
  EXPECT_DOUBLE_EQ(c.physics.buoyancy / c.physics.nu / c.physics.kappa * dt * h * h * h, 1e300);
  // Ordinary inputs keep the bits of the formula as written.
  const Case ordinary = parse(rayleigh_case(1e5, 0.7, "diffusive"));
  const double kappa = h * h, nu = 0.7 * kappa;
  EXPECT_EQ(ordinary.physics.kappa, kappa);
  EXPECT_EQ(ordinary.physics.nu, nu);
  EXPECT_EQ(ordinary.physics.buoyancy, 1e5 * nu * kappa / (dt * h * h * h));
}

TEST(CaseFile, DimensionalCoefficientsMustBeNormal) {
  json j = minimal_case();
  j["physics"]["nu"] = 1e-320;
  EXPECT_TRUE(fails_with(j, "/physics/nu", {"nu is a finite normal number", "gives nu = 1e-320 (subnormal)"}));
  j = minimal_case();
  j["physics"]["kappa"] = 2e-308;
  EXPECT_TRUE(fails_with(j, "/physics/kappa", {"(subnormal)"}));
  j = minimal_case();
  j["physics"]["buoyancy"] = -1e-310;
  EXPECT_TRUE(fails_with(j, "/physics/buoyancy",
                         {"buoyancy is 0 or a finite normal number", "gives buoyancy = -1e-310 (subnormal)"}));
  j["physics"]["buoyancy"] = 0;  // no buoyancy: allowed
  EXPECT_EQ(parse(j).physics.buoyancy, 0.0);
  j["physics"]["nu"] = 2.2250738585072014e-308;  // the smallest normal double
  EXPECT_EQ(parse(j).physics.nu, 2.2250738585072014e-308);
}

TEST(CaseFile, NumberBelowTheRangeOfADouble) {
  std::string text = minimal_case().dump();
  const std::string nu = "\"nu\":1";
  text.replace(text.find(nu), nu.size(), "\"nu\":1e-400");
  EXPECT_TRUE(fails_with(text, "/physics/nu", {"expected a number within the range of a double, got 1e-400",
                                               "it would read as 0"}));
  text = minimal_case().dump();
  const std::string extent = "[0,2]]";
  text.replace(text.find(extent), extent.size(), "[0,2e-999]]");
  EXPECT_TRUE(fails_with(text, "/grid/extent/2/1", {"got 2e-999"}));
  // Zero written any way is zero.
  text = minimal_case().dump();
  const std::string buoyancy = "\"buoyancy\":0";
  text.replace(text.find(buoyancy), buoyancy.size(), "\"buoyancy\":0.000e-999");
  EXPECT_EQ(parse_case(text, kSource).physics.buoyancy, 0.0);
  EXPECT_TRUE(fails_with(minimal_case(), "/time/end", {"1e-400"}, {"time.end=1e-400"}));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string repeated(const std::string& s, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += s;
  return out;
}

TEST(CaseFile, DeepNestingIsRejectedBeforeItCanRecurse) {
  // 100000 levels crashed the DOM parser (one stack frame per level); the pre-check stops at 65.
  EXPECT_TRUE(fails_with(nested_arrays(100000), repeated("/0", 64),
                         {"expected at most 64 levels of nested arrays and objects"}));
  const std::string objects = repeated("{\"a\":", 100000) + "1" + std::string(100000, '}');
  EXPECT_TRUE(fails_with(objects, repeated("/a", 64), {"at most 64 levels"}));
}

TEST(CaseFile, ValueNestedTooDeepInsideAValidCase) {
  // /description is at level 2: 63 more levels reach the limit, 64 pass it.
  const std::string marker = "\"description\":\"Rayleigh-Benard test\"";
  std::string text = full_case().dump();
  text.replace(text.find(marker), marker.size(), "\"description\":" + nested_arrays(64));
  EXPECT_TRUE(fails_with(text, "/description" + repeated("/0", 63), {"at most 64 levels"}));
  text = full_case().dump();
  text.replace(text.find(marker), marker.size(), "\"description\":" + nested_arrays(63));
  EXPECT_TRUE(fails_with(text, "/description", {"expected a string, got [[[[["}));
  // The same through --set: the value is as deep as the key path puts it.
  EXPECT_TRUE(fails_with(minimal_case(), "/description" + repeated("/0", 63), {"at most 64 levels"},
                         {"description=" + nested_arrays(100000)}));
  EXPECT_TRUE(fails_with(minimal_case(), "/description", {"expected a string"},
                         {"description=" + nested_arrays(63)}));
}

TEST(CaseFile, OverrideKeyPathWithinTheNestingLimit) {
  std::string path = "description";
  for (int i = 1; i < 65; ++i) path += ".a";
  try {
    parse(minimal_case(), {path + "=1"});
    FAIL() << "no error";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a key path of at most 64 components (the nesting limit), got 65"),
              std::string::npos)
        << e.what();
  }
  path.resize(path.size() - 2);  // 64 components: the value is at the limit
  EXPECT_TRUE(fails_with(minimal_case(), "/description", {"expected a string"}, {path + "=1"}));
}

}  // namespace
}  // namespace bouss

namespace bouss {
namespace {

std::string load_error(const std::string& path) {
  try {
    load_case(path);
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

TEST(CaseFile, EndlessFileIsRefusedAfterTheLimit) {
  // /dev/zero reports size 0 and never ends: the read must stop by itself.
  EXPECT_EQ(load_error("/dev/zero"), "/dev/zero: larger than 4 MiB: not a case file");
}

TEST(CaseFile, FileOfFourMiBIsReadOneByteMoreIsNot) {
  const std::string path = ::testing::TempDir() + "bouss_test_large_case.json";
  std::string text = minimal_case().dump();
  text.resize(std::size_t(4) << 20, ' ');  // JSON allows trailing whitespace
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  EXPECT_EQ(load_case(path).name, "minimal");
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << ' ';
  }
  EXPECT_EQ(load_error(path), path + ": larger than 4 MiB: not a case file");
  std::remove(path.c_str());
}

TEST(CaseFile, FolderAsCaseFile) {
  const std::string path = ::testing::TempDir();
  EXPECT_EQ(load_error(path), path + ": cannot read case file: it is a directory");
}

}  // namespace
}  // namespace bouss

// ---------------------------------------------------------------------------
// The lock exchange's Grashof form (config/units.hpp)

namespace bouss {
namespace {

// minimal_case() as a full-depth lock exchange in the Grashof form: a channel of depth
// H = 8 (half depth h = 4) between insulating walls, the lock profile's fluids at 1 (left)
// and -1 (right), so dT = 2; Gr = 1e6, Sc = 0.5, g' = 4.
json grashof_case() {
  json j = minimal_case();
  j["grid"]["extent"][2] = {0, 8};
  j["physics"] = {{"grashof", 1e6}, {"schmidt", 0.5}, {"reduced_gravity", 4}};
  j["boundaries"]["z_lo"]["temperature"] = "insulating";
  j["boundaries"]["z_hi"] = {{"velocity", "free_slip"}, {"temperature", "insulating"}};
  j["initial"] = {{"temperature", {{"profile", "lock"}, {"left", 1.0}, {"right", -1.0}}}};
  return j;
}

TEST(LockExchangeUnits, GrashofAndSchmidtGiveTheCoefficients) {
  const Case c = parse(grashof_case());
  const double h = 4.0, g = 4.0, gr = 1e6, sc = 0.5, dt = 2.0;
  EXPECT_EQ(c.physics.units, Units::buoyancy);
  EXPECT_EQ(c.physics.grashof, gr);
  EXPECT_FALSE(c.physics.reynolds.has_value());
  EXPECT_EQ(c.physics.schmidt, sc);
  EXPECT_EQ(c.physics.reduced_gravity, g);
  EXPECT_FALSE(c.physics.rayleigh.has_value());
  EXPECT_FALSE(c.physics.prandtl.has_value());
  // buoyancy = g'/dT, nu = sqrt(g' h^3 / Gr) = sqrt(4 * 64 / 1e6), kappa = nu / Sc.
  EXPECT_EQ(c.physics.buoyancy, 2.0);
  EXPECT_DOUBLE_EQ(c.physics.nu, 0.016);
  EXPECT_DOUBLE_EQ(c.physics.kappa, 0.032);
  EXPECT_EQ(c.physics.nu, h * std::sqrt(g * h / gr)) << "the formula's own bits";
  EXPECT_EQ(c.physics.kappa, c.physics.nu / sc);
  // The definitions back: Gr = (u_b h / nu)^2 with u_b = sqrt(g' h), g' = buoyancy dT.
  const double u_b = std::sqrt(c.physics.buoyancy * dt * h);
  EXPECT_DOUBLE_EQ(std::pow(u_b * h / c.physics.nu, 2), gr);
  EXPECT_DOUBLE_EQ(c.physics.nu / c.physics.kappa, sc);
  EXPECT_EQ(c.physics.reference_temperature, 0.0) << "the mean of the two fluids";
  // g' defaults to 1: u_b = sqrt(h) = 2, nu = sqrt(64 / 1e6).
  json j = grashof_case();
  j["physics"].erase("reduced_gravity");
  const Case unit_g = parse(j);
  EXPECT_EQ(unit_g.physics.reduced_gravity, 1.0);
  EXPECT_EQ(unit_g.physics.buoyancy, 0.5);
  EXPECT_DOUBLE_EQ(unit_g.physics.nu, 0.008);
}

TEST(LockExchangeUnits, ReynoldsIsTheSquareRootOfGrashof) {
  json j = grashof_case();
  j["physics"] = {{"reynolds", 1e3}, {"schmidt", 0.5}, {"reduced_gravity", 4}};
  const Case re = parse(j), gr = parse(grashof_case());
  EXPECT_EQ(re.physics.units, Units::buoyancy);
  EXPECT_EQ(re.physics.reynolds, 1e3);
  EXPECT_FALSE(re.physics.grashof.has_value());
  EXPECT_EQ(re.physics.nu, std::sqrt(4.0 * 4.0) * 4.0 / 1e3) << "u_b h / Re, the formula's own bits";
  EXPECT_DOUBLE_EQ(re.physics.nu, gr.physics.nu);
  EXPECT_DOUBLE_EQ(re.physics.kappa, gr.physics.kappa);
  EXPECT_EQ(re.physics.buoyancy, gr.physics.buoyancy);
  // The Schmidt number may be given as the temperature's Prandtl number.
  j["physics"] = {{"grashof", 1e6}, {"prandtl", 0.5}, {"reduced_gravity", 4}};
  const Case pr = parse(j);
  EXPECT_EQ(pr.physics.schmidt, 0.5);
  EXPECT_FALSE(pr.physics.prandtl.has_value()) << "the Rayleigh form's Prandtl number";
  EXPECT_EQ(pr.physics.nu, gr.physics.nu);
  EXPECT_EQ(pr.physics.kappa, gr.physics.kappa);
}

TEST(LockExchangeUnits, CaseWrittenBackParsesToTheSameForm) {
  for (const json& physics : {json{{"grashof", 1e6}, {"prandtl", 0.5}}, json{{"reynolds", 1e3}, {"schmidt", 0.5}}}) {
    json j = grashof_case();
    j["physics"] = physics;
    const Case c = parse(j);
    const Case again = parse_case(case_to_json(c).dump(), kSource);
    EXPECT_EQ(again.physics.units, Units::buoyancy);
    EXPECT_EQ(again.physics.grashof, c.physics.grashof);
    EXPECT_EQ(again.physics.reynolds, c.physics.reynolds);
    EXPECT_EQ(again.physics.schmidt, c.physics.schmidt);
    EXPECT_EQ(again.physics.reduced_gravity, 1.0);
    EXPECT_EQ(again.physics.nu, c.physics.nu);
    EXPECT_EQ(again.physics.kappa, c.physics.kappa);
    EXPECT_EQ(again.physics.buoyancy, c.physics.buoyancy);
    EXPECT_EQ(again.physics.reference_temperature, c.physics.reference_temperature);
  }
}

TEST(LockExchangeUnits, GrashofOrReynoldsNotBoth) {
  json j = grashof_case();
  j["physics"]["reynolds"] = 1e3;
  EXPECT_TRUE(fails_with(j, "/physics/reynolds",
                         {"expected \"grashof\" or \"reynolds\", not both (Re = sqrt(Gr)", "got 1000.0 with \"grashof\""}));
  j["physics"].erase("grashof");
  j["physics"]["grashof"] = 1e6;  // now the later one
  EXPECT_TRUE(fails_with(j, "/physics/grashof", {"not both", "with \"reynolds\" 1000.0"}));
  j["physics"].erase("grashof");
  j["physics"].erase("reynolds");
  EXPECT_TRUE(fails_with(j, "/physics/grashof", {"missing required key", "or \"reynolds\""}));
  j["physics"]["reynolds"] = 0;
  EXPECT_TRUE(fails_with(j, "/physics/reynolds", {"expected a positive number, got 0"}));
}

TEST(LockExchangeUnits, SchmidtOrPrandtlNotBoth) {
  json j = grashof_case();
  j["physics"]["prandtl"] = 0.71;
  EXPECT_TRUE(fails_with(j, "/physics/prandtl",
                         {"expected \"schmidt\" or \"prandtl\", not both", "got 0.71 with \"schmidt\" 0.5"}));
  j["physics"].erase("schmidt");
  j["physics"].erase("prandtl");
  EXPECT_TRUE(fails_with(j, "/physics/schmidt", {"missing required key", "or \"prandtl\""}));
  j["physics"]["schmidt"] = 0.5;
  j["physics"]["reduced_gravity"] = -1;
  EXPECT_TRUE(fails_with(j, "/physics/reduced_gravity", {"expected a positive number, got -1"}));
}

TEST(LockExchangeUnits, FormsDoNotMix) {
  json j = grashof_case();
  j["physics"]["rayleigh"] = 1e5;
  EXPECT_TRUE(fails_with(j, "/physics/rayleigh", {"the nondimensional Grashof form", "\"rayleigh\" mixed with \"grashof\""}));
  j["physics"] = {{"prandtl", 1}, {"units", "diffusive"}, {"grashof", 1e6}};
  EXPECT_TRUE(fails_with(j, "/physics/grashof", {"\"grashof\" mixed with \"units\""}));
  j["physics"] = {{"reduced_gravity", 1}, {"nu", 1}};
  EXPECT_TRUE(fails_with(j, "/physics/nu", {"\"nu\" mixed with \"reduced_gravity\""}));
  j["physics"] = json::object();
  EXPECT_TRUE(fails_with(j, "/physics", {"grashof (or reynolds), schmidt (or prandtl), reduced_gravity", "got {}"}));
}

TEST(LockExchangeUnits, GrashofNeedsTheLockProfile) {
  json j = grashof_case();
  j["initial"]["temperature"] = {{"profile", "linear"}, {"bottom", 1}, {"top", 0}};
  EXPECT_TRUE(fails_with(j, "/physics/grashof",
                         {"expected the lock initial profile (/initial/temperature/profile \"lock\") with differing",
                          "the Grashof number is defined by their difference", "got \"linear\""}));
  j.erase("initial");
  EXPECT_TRUE(fails_with(j, "/physics/grashof", {"got no /initial/temperature (the default profile \"uniform\")"}));
  j["initial"] = {{"temperature", {{"profile", "lock"}, {"left", 1.0}, {"right", 1.0}}}};
  EXPECT_TRUE(fails_with(j, "/physics/grashof", {"differing left and right", "got left 1, right 1"}));
  j["physics"] = {{"reynolds", 1e3}, {"schmidt", 0.5}};
  EXPECT_TRUE(fails_with(j, "/physics/reynolds", {"the Reynolds number is defined by their difference"}));
  // A difference beyond a double: the fluid further from 0 is named.
  j["initial"]["temperature"]["left"] = 1e308;
  j["initial"]["temperature"]["right"] = -1.5e308;
  EXPECT_TRUE(fails_with(j, "/initial/temperature/right",
                         {"difference from the other fluid's is finite", "got -1.5e+308 with left 1e+308"}));
}

TEST(LockExchangeUnits, GrashofNeedsWallsAtZ) {
  json j = grashof_case();
  j["boundaries"]["z_lo"] = "periodic";
  j["boundaries"]["z_hi"] = "periodic";
  EXPECT_TRUE(fails_with(j, "/physics/grashof",
                         {"expected walls on boundaries z_lo and z_hi", "half the depth",
                          "got z_lo \"periodic\", z_hi \"periodic\""}));
}

TEST(LockExchangeUnits, CoefficientsOutOfRangeNameTheKey) {
  // kappa = nu / Sc = 0.016 / 1e-320.
  json j = grashof_case();
  j["physics"]["schmidt"] = 1e-320;
  EXPECT_TRUE(fails_with(j, "/physics/schmidt",
                         {"expected a value for which kappa is a finite normal number", "got 1e-320",
                          "with Gr = 1000000, g' = 4, H = 8 gives kappa = inf (overflow)"}));
  // buoyancy = g' / dT with dT = 1e-310.
  j = grashof_case();
  j["initial"]["temperature"]["left"] = 1e-310;
  j["initial"]["temperature"]["right"] = 0;
  EXPECT_TRUE(fails_with(j, "/initial/temperature/left",
                         {"got 1e-310 (dT = 1e-310 with right 0)", "gives buoyancy = inf (overflow)"}));
  // nu = sqrt(g' h^3 / Gr) = 7e311 with H = 1e210: the depth's power 3/2 pushes furthest.
  j = grashof_case();
  j["grid"]["extent"][2] = {0, 1e210};
  EXPECT_TRUE(fails_with(j, "/grid/extent/2", {"(H = 1e+210)", "with Gr = 1000000, g' = 4 gives nu = inf (overflow)"}));
}

TEST(LockExchangeUnits, LargeReducedGravityDoesNotOverflowOnTheWay) {
  // nu = h sqrt(g' h / Gr) = 1e10 sqrt(1e310 / 1e300) = 1e15, though g' h is beyond a double.
  json j = grashof_case();
  j["grid"]["extent"][2] = {0, 2e10};
  j["physics"] = {{"grashof", 1e300}, {"schmidt", 1}, {"reduced_gravity", 1e300}};
  const Case c = parse(j);
  EXPECT_DOUBLE_EQ(c.physics.nu, 1e15);
  EXPECT_DOUBLE_EQ(c.physics.kappa, 1e15);
  EXPECT_EQ(c.physics.buoyancy, 5e299);
}

TEST(LockExchangeUnits, ReferenceTemperatureIsTheMeanOfTheTwoFluids) {
  // In every form: here the dimensional one, between plates at 3 and 1 (their mean is 2).
  json j = minimal_case();
  j["initial"] = {{"temperature", {{"profile", "lock"}, {"left", 1.5}, {"right", -0.5}}}};
  EXPECT_EQ(parse(j).physics.reference_temperature, 0.5);
  j["physics"] = {{"rayleigh", 1e5}, {"prandtl", 1}, {"units", "free_fall"}};
  EXPECT_EQ(parse(j).physics.reference_temperature, 0.5);
  j["physics"]["reference_temperature"] = -3.0;  // given: kept
  EXPECT_EQ(parse(j).physics.reference_temperature, -3.0);
  // The mean of two fluids near the top of a double's range is finite.
  j = grashof_case();
  j["initial"]["temperature"]["left"] = 1.5e308;
  j["initial"]["temperature"]["right"] = 1e308;
  EXPECT_EQ(parse(j).physics.reference_temperature, 1.25e308);
}

// cases/lock_exchange_2d.json is Hartel, Meiburg & Necker's (2000) lock exchange: h = 1,
// Gr = 1.25e6, Sc = 0.71, the lock at mid-length, a no-slip floor and a free-slip lid.
TEST(LockExchangeUnits, TheCaseFileIsTheGravityCurrentLockExchange) {
  const Case c = load_case(std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange_2d.json");
  EXPECT_EQ(c.physics.units, Units::buoyancy);
  EXPECT_EQ(c.physics.grashof, 1.25e6);
  EXPECT_EQ(c.physics.schmidt, 0.71);
  EXPECT_EQ(c.length(2), 2.0) << "h = 1";
  EXPECT_GE(c.length(0) / c.length(2), 8.0) << "a long channel";
  EXPECT_EQ(c.n[1], 1);
  EXPECT_DOUBLE_EQ(c.physics.nu, 1.0 / std::sqrt(1.25e6));
  EXPECT_DOUBLE_EQ(c.physics.kappa, c.physics.nu / 0.71);
  EXPECT_EQ(c.physics.buoyancy, 1.0) << "g' = 1 with dT = 1";
  EXPECT_EQ(c.physics.reference_temperature, 0.0);
  EXPECT_EQ(c.initial.profile, TemperatureProfile::lock);
  EXPECT_EQ(c.initial.position, 0.5 * (c.extent[0][0] + c.extent[0][1]));
  EXPECT_LT(c.initial.left, c.initial.right) << "the dense (cold) fluid on the left";
  EXPECT_EQ(c.faces[4].velocity, VelocityBC::no_slip);
  EXPECT_EQ(c.faces[5].velocity, VelocityBC::free_slip);
}

TEST(CaseFile, PressureCheckInterval) {
  EXPECT_FALSE(parse(minimal_case()).pressure.check_interval) << "unset: the solver's default";
  json j = minimal_case();
  j["pressure"] = {{"check_interval", 4}};
  const Case c = parse(j);
  EXPECT_EQ(c.pressure.check_interval, 4);
  EXPECT_EQ(parse_case(case_to_json(c).dump(), kSource).pressure.check_interval, 4) << "written back as given";
  EXPECT_FALSE(parse_case(case_to_json(parse(minimal_case())).dump(), kSource).pressure.check_interval)
      << "an unset interval stays unset (its default depends on the solver and the backend)";
  j["pressure"] = {{"check_interval", 0}};
  EXPECT_TRUE(fails_with(j, "/pressure/check_interval", {"expected a positive integer, got 0"}));
  j["pressure"] = {{"check_interval", "often"}};
  EXPECT_TRUE(fails_with(j, "/pressure/check_interval", {"expected a positive integer"}));
}

// The cadence's defaults (SolverType::check_interval): 10 for the direct fft solve, 1 for the
// iterative solvers on the CPU (the multigrid's 10 on CUDA is checked by the gpu suite);
// a case's own interval wins everywhere.
TEST(CaseFile, PressureCheckIntervalDefaultsPerSolver) {
  SolverSettings s;
  const Backend cpu = Backend::cpu();
  EXPECT_EQ(find_solver("fft")->check_interval(s, cpu), 10);
  for (const char* solver : {"multigrid", "line_multigrid", "line_pcg"})
    EXPECT_EQ(find_solver(solver)->check_interval(s, cpu), 1);
  EXPECT_EQ(multigrid_options(s, cpu).cpu_coarse_cells, default_cpu_coarse_cells);
  s.check_interval = 3;
  for (const SolverType* type : solver_types()) EXPECT_EQ(type->check_interval(s, cpu), 3) << type->name();
}

// The buoyancy time step's contrast (config/units.hpp temperature_contrast): the spread of
// the fixed boundary temperatures and the initial profile's values, widened by the noise.
TEST(TemperatureContrast, SpansThePlatesTheInitialProfileAndThePerturbation) {
  json j = minimal_case();  // plates at 3 and 1, the conduction profile between them
  EXPECT_EQ(temperature_contrast(parse(j)), 2.0);
  j["initial"] = {{"temperature", {{"profile", "uniform"}, {"value", 7.0}}},
                  {"perturbation", {{"amplitude", 0.25}}}};
  EXPECT_EQ(temperature_contrast(parse(j)), 7.0 - 1.0 + 0.5) << "a uniform start outside the plates' range";
  EXPECT_EQ(temperature_contrast(parse(grashof_case())), 2.0) << "the lock's two fluids, insulating walls";
  j = minimal_case();
  j["physics"]["reference_temperature"] = 100.0;
  EXPECT_EQ(temperature_contrast(parse(j)), 2.0) << "a uniform T - T_ref drives nothing";
}

// The range bouss plot centres T's colours on (config/units.hpp temperature_range): the plates,
// the initial profile's values; no perturbation, no reference temperature.
TEST(TemperatureRange, IsThePlatesOrTheLocksFluidsWithoutTheNoise) {
  json j = minimal_case();  // plates at 3 and 1
  EXPECT_EQ(temperature_range(parse(j)), (std::array<double, 2>{1.0, 3.0}));
  j["initial"] = {{"temperature", {{"profile", "uniform"}, {"value", 7.0}}}, {"perturbation", {{"amplitude", 0.25}}}};
  EXPECT_EQ(temperature_range(parse(j)), (std::array<double, 2>{1.0, 7.0}));
  const Case lock = parse(grashof_case());
  EXPECT_EQ(temperature_range(lock), (std::array<double, 2>{std::min(lock.initial.left, lock.initial.right),
                                                             std::max(lock.initial.left, lock.initial.right)}));
  EXPECT_LT(temperature_range(lock)[0], temperature_range(lock)[1]);
}

// The scale each SI unit stands for in a nondimensional file (the units_scale attribute):
// time is length over velocity, the diffusive velocity kappa/H.
TEST(NondimensionalScale, FollowsEachFormsLengthVelocityAndTemperature) {
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "m"), "H");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "s"), "H/U");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "m s-1"), "U");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "m2 s-2"), "U^2");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "s-1"), "U/H");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "m s-1 K"), "dT U");
  EXPECT_EQ(nondimensional_scale(Units::free_fall, "K2"), "dT^2");
  EXPECT_EQ(nondimensional_scale(Units::diffusive, "s"), "H^2/kappa");
  EXPECT_EQ(nondimensional_scale(Units::diffusive, "m s-1"), "kappa/H");
  EXPECT_EQ(nondimensional_scale(Units::diffusive, "m s-2"), "kappa^2/H^3");
  EXPECT_EQ(nondimensional_scale(Units::buoyancy, "m5 s-2"), "h^3 u_b^2");
  EXPECT_EQ(nondimensional_scale(Units::buoyancy, "K m3"), "dT h^3");
  EXPECT_EQ(nondimensional_scale(Units::buoyancy, "m2 s-1 K-1"), "h u_b/dT");
  EXPECT_EQ(nondimensional_scale(Units::buoyancy, "s-1 K-1"), "u_b/(dT h)");
  for (const char* none : {"1", "", "m s-1 m-1 s"}) EXPECT_EQ(nondimensional_scale(Units::buoyancy, none), "") << none;
  for (const char* other : {"W m-2", "m^2", "m2.5", "kg"}) EXPECT_EQ(nondimensional_scale(Units::free_fall, other), "") << other;
  EXPECT_EQ(nondimensional_scale(Units::dimensional, "m"), "");
}

// sqrt(cfl h / (b dT)): the Courant number that the largest buoyancy gives in one step from rest.
TEST(TemperatureContrast, TheBuoyancyLimitKeepsTheFreeFallCourantNumberAtTheCfl) {
  const double dt = buoyancy_time_step(0.125, -2.0, 1.5, 0.5);
  EXPECT_DOUBLE_EQ(2.0 * 1.5 * dt * dt / 0.125, 0.5);
  EXPECT_TRUE(std::isinf(buoyancy_time_step(0.125, 0.0, 1.5, 0.5))) << "no buoyancy, no limit";
  EXPECT_TRUE(std::isinf(buoyancy_time_step(0.125, 2.0, 0.0, 0.5))) << "no contrast, no limit";
  StepLimits lim;
  lim.diffusive_dt = 1.0;
  lim.buoyancy_dt = 0.25;
  lim.cfl = 0.5;
  EXPECT_EQ(limited_time_step(lim, 0.0), 0.25) << "at rest";
  EXPECT_EQ(limited_time_step(lim, 4.0), 0.125) << "in motion the advective limit can bind";
}

}  // namespace
}  // namespace bouss
