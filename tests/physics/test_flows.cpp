// Whole-step physics: a stably stratified fluid at rest stays at rest; the conduction
// state of Rayleigh-Benard convection is stable below onset (perturbations decay) and
// unstable above it (they grow); the NetCDF output reads back with the run's values.
#include <gtest/gtest.h>

#include <filesystem>
#include "io/netcdf_handles.hpp"

#include "grid/stretching.hpp"
#include "io/netcdf_writer.hpp"
#include "model/flow_simulation.hpp"
#include "test_support.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {

// Warm on top, cold below, side walls in y, periodic in x: the buoyancy is balanced exactly by
// the discrete pressure gradient, on a uniform grid or one stretched along every axis (x
// periodic, towards both ends; y towards its walls; z towards the plates).
void check_rest_stays_at_rest(bool stretched) {
  Case c = box_case({8, 8, 16}, {1.0, 1.0, 1.0}, 0.01, 0.01, 10.0);
  set_plates(c, VelocityBC::no_slip, 0.0, 1.0);
  c.faces[2] = c.faces[3] = wall(VelocityBC::free_slip);
  c.initial.profile = TemperatureProfile::conduction;
  c.initial.bottom = 0.0;
  c.initial.top = 1.0;
  c.physics.reference_temperature = 0.2;  // not the mean: the hydrostatic pressure is non-trivial
  c.pressure.tolerance = 1e-12;
  c.time.steps = 100;
  if (stretched)
    for (int a = 0; a < 3; ++a) {
      c.axis_faces[a] = tanh_faces(c.n[a], 0.0, 1.0, 1.0, a == 0 ? Cluster::both : a == 1 ? Cluster::low : Cluster::both);
      c.stretching[a] = "tanh";
    }
  FlowSimulation<double> sim(c, Backend::cpu());
  ASSERT_EQ(sim.grid().stretched_horizontally(), stretched);
  while (!sim.finished()) sim.step();
  const double velocity_scale = std::sqrt(10.0 * 1.0 * 1.0);  // sqrt(alpha g dT H)
  EXPECT_LT(sim.diagnostics().max_velocity, 1e-10 * velocity_scale);
  EXPECT_GT(sim.time(), 1.0);
}

}  // namespace

TEST(Physics, StablyStratifiedFluidAtRestStaysAtRest) { check_rest_stays_at_rest(false); }

TEST(Physics, StablyStratifiedFluidAtRestStaysAtRestOnAGridStretchedAlongEveryAxis) {
  check_rest_stays_at_rest(true);
}

namespace {

// A flat Rayleigh-Benard box (32 x 32 x 12 on 4 x 4 x 1, Ra = 2e4) run for 40 steps with the
// pressure solved to 1e-11 by `solver`, on a uniform or a tanh-stretched z: its T field.
std::vector<double> flat_convection(const std::string& solver, bool stretched) {
  Case c = box_case({32, 32, 12}, {4.0, 4.0, 1.0});
  make_rayleigh_benard(c, 2e4, 1.0, Units::free_fall, VelocityBC::no_slip);
  c.initial.perturbation_amplitude = 0.05;
  if (stretched) {
    c.axis_faces[2] = tanh_faces(12, 0.0, 1.0, 1.0, Cluster::both);
    c.stretching[2] = "tanh";
  }
  c.pressure.solver = solver;
  c.pressure.tolerance = 1e-11;
  c.time.steps = 40;
  c.time.dt = 0.02;
  FlowSimulation<double> sim(c, Backend::cpu());
  while (!sim.finished()) sim.step();
  EXPECT_LT(sim.diagnostics().max_divergence, 1e-8) << solver;
  EXPECT_GT(sim.diagnostics().kinetic_energy, 1e-8) << solver << ": the flow moved";
  return sim.host_values("T");
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t p = 0; p < a.size(); ++p) d = std::max(d, std::fabs(a[p] - b[p]));
  return d;
}

}  // namespace

// The pressure solvers solve the same equation: to their tolerance the flow is the same.
TEST(Physics, FlatConvectionIsTheSameWithEveryPressureSolver) {
  const std::vector<double> point = flat_convection("multigrid", false), line = flat_convection("line_multigrid", false);
  EXPECT_LT(max_difference(point, line), 1e-8);
  // On a stretched z the point multigrid refuses; auto (fft: x and y periodic) and the line
  // multigrid agree, and the stretching changes the flow (it reached the run).
  const std::vector<double> s_line = flat_convection("line_multigrid", true), s_auto = flat_convection("auto", true);
  EXPECT_LT(max_difference(s_line, s_auto), 1e-8);
  EXPECT_EQ(max_difference(s_auto, flat_convection("fft", true)), 0.0);
  EXPECT_GT(max_difference(s_line, line), 1e-6);
  EXPECT_LT(max_difference(flat_convection("fft", false), line), 1e-8);
  // Line-preconditioned CG, on both grids.
  EXPECT_LT(max_difference(flat_convection("line_pcg", false), line), 1e-8);
  EXPECT_LT(max_difference(flat_convection("line_pcg", true), s_line), 1e-8);
}

namespace {

// 2D Rayleigh-Benard cell of one critical wavelength (2 pi / 3.117) between no-slip plates,
// in diffusive units (kappa = 1, time H^2/kappa), from the conduction state plus noise.
Case rayleigh_benard_cell(double rayleigh) {
  Case c = box_case({24, 1, 12}, {2.016, 0.1, 1.0});
  make_rayleigh_benard(c, rayleigh, 1.0, Units::diffusive, VelocityBC::no_slip);
  c.initial.perturbation_amplitude = 1e-3;
  c.time.steps.reset();
  return c;
}

// Kinetic energy of one run as it passes t1 and at its end t2 > t1.
std::pair<double, double> energy_at(double rayleigh, double t1, double t2) {
  Case c = rayleigh_benard_cell(rayleigh);
  c.time.end = t2;
  FlowSimulation<double> sim(c, Backend::cpu());
  while (sim.time() < t1) sim.step();
  const double e1 = sim.diagnostics().kinetic_energy;
  while (!sim.finished()) sim.step();
  return {e1, sim.diagnostics().kinetic_energy};
}

}  // namespace

TEST(Physics, ConductionStateBelowOnsetDecaysItsPerturbation) {
  const auto [e1, e2] = energy_at(1000.0, 0.3, 0.6);
  EXPECT_GT(e1, 0.0);
  EXPECT_LT(e2, 0.5 * e1) << "Ra = 1000 < 1708: the perturbation must decay";
}

TEST(Physics, ConductionStateAboveOnsetAmplifiesItsPerturbation) {
  const auto [e1, e2] = energy_at(3000.0, 0.3, 0.6);
  EXPECT_GT(e2, 2.0 * e1) << "Ra = 3000 > 1708: the perturbation must grow";
}

TEST(Physics, NetcdfOutputReadsBackWithTheRunsValues) {
  Case c = rayleigh_benard_cell(5000.0);
  c.n = {8, 4, 4};
  c.time.steps = 3;
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "bouss_readback.nc";
  std::filesystem::remove(file);
  c.output.streams = {OutputStream{}};
  c.output.streams.at(0).file = file.string();
  FlowSimulation<double> sim(c, Backend::cpu());
  while (!sim.finished()) sim.step();
  {
    NetcdfWriter w(file.string(), c);
    std::vector<SnapshotField> fields;
    for (const auto& name : c.output.streams.at(0).fields) fields.push_back({name, sim.host_values(name)});
    w.write(sim.time(), fields, {{"kinetic_energy", sim.diagnostics().kinetic_energy}});
    w.close();
  }
  nc::ReadFile f(file.string());
  for (const auto& name : c.output.streams.at(0).fields) {
    const std::vector<double> expected = sim.host_values(name);
    std::vector<double> got(expected.size());
    f.getVar(name).getVar(got.data());
    EXPECT_EQ(got, expected) << name;
  }
  double t = 0;
  f.getVar("time").getVar(&t);
  EXPECT_EQ(t, sim.time());
}
