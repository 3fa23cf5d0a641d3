// restart_differences: a checkpoint continues only under a case that keeps the grid, the
// physics, the boundaries, the precision and the pressure solver; time, output,
// checkpoints, the initial condition, names and the backend may change.
#include <gtest/gtest.h>

#include "grid/stretching.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "run/restart_compatibility.hpp"

namespace bouss {
namespace {

Case saved_case() {
  return parse_case(R"({
    "name": "rb",
    "description": "restart test",
    "grid": {"n": [32, 32, 16], "extent": [[0, 2], [0, 2], [0, 1]]},
    "physics": {"rayleigh": 1e5, "prandtl": 0.7, "units": "free_fall"},
    "boundaries": {
      "x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
      "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
      "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}
    },
    "time": {"end": 10},
    "checkpoint": {"interval": 1}
  })",
                    "saved.json");
}

// The differences between saved_case() and a copy changed by `change`.
std::vector<std::string> after(const std::function<void(Case&)>& change) {
  Case now = saved_case();
  change(now);
  return restart_differences(saved_case(), now);
}

TEST(RestartCompatibility, IdenticalCasesContinue) { EXPECT_TRUE(restart_differences(saved_case(), saved_case()).empty()); }

TEST(RestartCompatibility, WhenAndWhatToWriteMayChange) {
  const auto lines = after([](Case& c) {
    c.time.end = 100.0;
    c.time.steps = 5;
    c.time.cfl = 0.3;
    c.time.dt = 1e-3;
    c.output.streams.at(0).file = "elsewhere.nc";
    c.output.streams.at(0).interval = 0.5;
    c.output.streams.at(0).fields = {"T"};
    c.checkpoint.interval_steps = 10;
    c.checkpoint.keep = 7;
    c.checkpoint.file = "ckpt/rb";
    c.initial.perturbation_amplitude = 0.5;
    c.initial.seed = 99;
    c.name = "rb_continued";
    c.description = "longer";
    c.backend = "cpu";
    c.source = "now.json";
    c.json_text = "{}";
  });
  EXPECT_TRUE(lines.empty()) << lines.front();
}

TEST(RestartCompatibility, GridDifferenceNamesBothShapes) {
  const auto lines = after([](Case& c) { c.n = {64, 64, 32}; });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/grid/n: the checkpoint has [32,32,16], the case [64,64,32]");
  const auto extent = after([](Case& c) { c.extent[2][1] = 1.5; });
  ASSERT_EQ(extent.size(), 1u);
  EXPECT_EQ(extent[0], "/grid/extent: the checkpoint has [[0,2],[0,2],[0,1]], the case [[0,2],[0,2],[0,1.5]]");
}

TEST(RestartCompatibility, BoundaryDifferenceDescribesBothFaces) {
  const auto lines = after([](Case& c) { c.faces[4].velocity = VelocityBC::free_slip; });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/boundaries/z_lo: the checkpoint has no-slip, fixed T = 1; the case free-slip, fixed T = 1");
  const auto value = after([](Case& c) { c.faces[5].temperature_value = 0.25; });
  ASSERT_EQ(value.size(), 1u);
  EXPECT_EQ(value[0], "/boundaries/z_hi: the checkpoint has no-slip, fixed T = 0; the case no-slip, fixed T = 0.25");
  const auto insulating = after([](Case& c) { c.faces[5].temperature = TemperatureBC::insulating; });
  ASSERT_EQ(insulating.size(), 1u);
  EXPECT_EQ(insulating[0], "/boundaries/z_hi: the checkpoint has no-slip, fixed T = 0; the case no-slip, insulating");
}

TEST(RestartCompatibility, CoefficientsAreComparedBitForBit) {
  // One bit apart: a different step. Each value is shown in a form that reads back exactly.
  const Case saved = saved_case();
  const double nu = saved.physics.nu, next = std::nextafter(nu, 1.0);
  const auto lines = after([&](Case& c) { c.physics.nu = next; });
  ASSERT_EQ(lines.size(), 1u);
  const std::string prefix = "/physics/nu: the checkpoint has ", middle = ", the case ";
  ASSERT_EQ(lines[0].rfind(prefix, 0), 0u) << lines[0];
  const std::size_t split = lines[0].find(middle);
  ASSERT_NE(split, std::string::npos) << lines[0];
  EXPECT_EQ(std::stod(lines[0].substr(prefix.size(), split - prefix.size())), nu) << lines[0];
  EXPECT_EQ(std::stod(lines[0].substr(split + middle.size())), next) << lines[0];
  // 0 and -0 compare equal as numbers, but are not the same bits.
  Case positive = saved_case(), negative = saved_case();
  positive.physics.reference_temperature = 0.0;
  negative.physics.reference_temperature = -0.0;
  const auto zero = restart_differences(positive, negative);
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_EQ(zero[0], "/physics/reference_temperature: the checkpoint has 0, the case -0");
}

// Every key a restart must keep: changing it alone gives exactly one line, naming it (where
// the change makes auto pick another solver, that is restart_solver_change's warning, not a line).
TEST(RestartCompatibility, EachKeptKeyIsNamed) {
  const std::vector<std::pair<std::string, std::function<void(Case&)>>> changes = {
      {"/grid/n", [](Case& c) { c.n[0] = 16; }},
      {"/grid/extent", [](Case& c) { c.extent[0][0] = -1.0; }},
      {"/physics/units", [](Case& c) { c.physics.units = Units::diffusive; }},
      {"/physics/rayleigh", [](Case& c) { c.physics.rayleigh = 2e5; }},
      {"/physics/prandtl", [](Case& c) { c.physics.prandtl.reset(); }},
      {"/physics/grashof", [](Case& c) { c.physics.grashof = 1.25e6; }},
      {"/physics/reynolds", [](Case& c) { c.physics.reynolds = 1118.0; }},
      {"/physics/schmidt", [](Case& c) { c.physics.schmidt = 0.71; }},
      {"/physics/reduced_gravity", [](Case& c) { c.physics.reduced_gravity = 1.0; }},
      {"/physics/nu", [](Case& c) { c.physics.nu *= 2; }},
      {"/physics/kappa", [](Case& c) { c.physics.kappa *= 2; }},
      {"/physics/buoyancy", [](Case& c) { c.physics.buoyancy = 0.0; }},
      {"/physics/reference_temperature", [](Case& c) { c.physics.reference_temperature = 0.0; }},
      {"/boundaries/x_lo", [](Case& c) { c.faces[0] = FaceCondition{VelocityBC::no_slip, TemperatureBC::insulating}; }},
      {"/boundaries/x_hi", [](Case& c) { c.faces[1] = FaceCondition{VelocityBC::no_slip, TemperatureBC::insulating}; }},
      {"/boundaries/y_lo", [](Case& c) { c.faces[2] = FaceCondition{VelocityBC::free_slip, TemperatureBC::conducting}; }},
      {"/boundaries/y_hi", [](Case& c) { c.faces[3] = FaceCondition{VelocityBC::free_slip, TemperatureBC::conducting}; }},
      {"/boundaries/z_lo", [](Case& c) { c.faces[4].temperature_value = 2.0; }},
      {"/boundaries/z_hi", [](Case& c) { c.faces[5].velocity = VelocityBC::free_slip; }},
      {"/precision", [](Case& c) { c.precision = Precision::single_precision; }},
      {"/pressure/solver", [](Case& c) { c.pressure.solver = "multigrid"; }},
      {"/pressure/tolerance", [](Case& c) { c.pressure.tolerance = 1e-6; }},
      {"/pressure/max_cycles", [](Case& c) { c.pressure.max_cycles = 10; }},
      {"/pressure/pre_sweeps", [](Case& c) { c.pressure.pre_sweeps = 3; }},
      {"/pressure/post_sweeps", [](Case& c) { c.pressure.post_sweeps = 1; }},
      {"/pressure/omega", [](Case& c) { c.pressure.omega = 1.0; }},
      {"/pressure/fmg", [](Case& c) { c.pressure.fmg = true; }},
      {"/pressure/mixed_precision", [](Case& c) { c.pressure.mixed_precision = false; }},
      {"/pressure/cuda_graphs", [](Case& c) { c.pressure.cuda_graphs = false; }},
      {"/pressure/cpu_coarse_cells", [](Case& c) { c.pressure.cpu_coarse_cells = 4096; }},
      {"/pressure/agglomerate_below", [](Case& c) { c.pressure.agglomerate_below = 8; }},
      {"/pressure/max_failures", [](Case& c) { c.pressure.max_failures = 1; }},
      {"/grid/z", [](Case& c) {
         c.axis_faces[2] = tanh_faces(c.n[2], c.extent[2][0], c.length(2), 1.0, Cluster::both);
         c.stretching[2] = "tanh";  // auto still picks fft (x and y periodic): the z alone changes
       }},
  };
  for (const auto& [pointer, change] : changes) {
    const auto lines = after(change);
    ASSERT_EQ(lines.size(), 1u) << pointer;
    EXPECT_EQ(lines[0].rfind(pointer + ": the checkpoint has ", 0), 0u) << lines[0];
  }
  // The values are shown as the case file writes them.
  EXPECT_EQ(after(changes[20].second)[0], "/pressure/solver: the checkpoint has \"direct\", the case \"multigrid\"");
  EXPECT_EQ(after(changes[27].second)[0],
            "/pressure/mixed_precision: the checkpoint has unset (the backend's default), the case false");
  EXPECT_EQ(after(changes[4].second)[0], "/physics/prandtl: the checkpoint has 0.7, the case none");
}

// The solver compared is the one that runs: "auto" and the solver it picks are the same.
TEST(RestartCompatibility, AutoAndTheSolverItPicksAreTheSame) {
  Case named = saved_case(), automatic = saved_case();
  named.pressure.solver = "fft";  // what auto picks with x and y periodic and walls in z
  automatic.pressure.solver = "auto";
  EXPECT_TRUE(restart_differences(named, automatic).empty());
  automatic.pressure.solver = "line_multigrid";
  const auto lines = restart_differences(named, automatic);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/pressure/solver: the checkpoint has \"direct\", the case \"line_multigrid\"");
}

// The checkpoint records the solver its run resolved: a case that names another is refused; a
// case that leaves the choice to auto, where auto now picks another (a solver added since, say),
// continues with one warning that the continuation is not bit for bit.
TEST(RestartCompatibility, TheCheckpointsOwnSolverIsCompared) {
  const Case saved = saved_case();  // auto: fft today (x and y periodic, walls in z)
  Case named = saved_case();
  named.pressure.solver = "fft";
  const auto lines = restart_differences(saved, named, RestartScope::continuation, "multigrid");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/pressure/solver: the checkpoint has \"multigrid\", the case \"direct\"");
  EXPECT_FALSE(restart_solver_change(saved, named, "multigrid").has_value());  // refused, not warned
  EXPECT_TRUE(restart_differences(saved, named, RestartScope::continuation, "fft").empty());

  const Case automatic = saved_case();
  EXPECT_TRUE(restart_differences(saved, automatic, RestartScope::continuation, "multigrid").empty());
  const auto warning = restart_solver_change(saved, automatic, "multigrid");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("solved the pressure with \"multigrid\", and pressure.solver = \"auto\" now picks \"direct\""),
            std::string::npos)
      << *warning;
  EXPECT_NE(warning->find("not bit for bit"), std::string::npos) << *warning;
  EXPECT_FALSE(restart_solver_change(saved, automatic, "fft").has_value());
  // A checkpoint from before checkpoints recorded it: its case resolved today.
  EXPECT_FALSE(restart_solver_change(saved, automatic).has_value());
}

TEST(RestartCompatibility, EveryDifferenceIsListed) {
  const auto lines = after([](Case& c) {
    c.n = {64, 64, 32};
    c.pressure.tolerance = 1e-6;
    c.faces[4].velocity = VelocityBC::free_slip;
  });
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("/grid/n:", 0), 0u);
  EXPECT_EQ(lines[1].rfind("/boundaries/z_lo:", 0), 0u);
  EXPECT_EQ(lines[2], "/pressure/tolerance: the checkpoint has 1e-08, the case 1e-06");
}

// bench --from: the checkpoint's flow under another precision and pressure solver, but the
// same problem (grid, physics, boundaries).
TEST(RestartCompatibility, AFlowStateMayStartAnotherSolverAndPrecision) {
  Case now = saved_case();
  now.precision = Precision::single_precision;
  now.pressure.solver = "multigrid";
  now.pressure.tolerance = 1e-4;
  now.pressure.max_cycles = 3;
  EXPECT_TRUE(restart_differences(saved_case(), now, RestartScope::flow_state).empty());
  EXPECT_EQ(restart_differences(saved_case(), now).size(), 4u);  // a continuation refuses each
  now.n = {64, 64, 32};
  now.faces[5].temperature_value = 0.5;
  const auto lines = restart_differences(saved_case(), now, RestartScope::flow_state);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "/grid/n: the checkpoint has [32,32,16], the case [64,64,32]");
  EXPECT_EQ(lines[1], "/boundaries/z_hi: the checkpoint has no-slip, fixed T = 0; the case no-slip, fixed T = 0.5");
}

}  // namespace
}  // namespace bouss
