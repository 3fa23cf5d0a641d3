// The CUDA backend: the same operator, ghost-fill and projection checks as on the CPU,
// and CPU and CUDA runs agreeing. Each test skips (visibly) where no GPU is present.
#include <gtest/gtest.h>

#include "ghost_checks.hpp"
#include "operator_checks.hpp"
#include "projection_checks.hpp"

using namespace bouss;
using namespace bouss::test;

TEST(GpuGhostFill, EveryKindOnEveryAxisAndStaggering) {
  BOUSS_GPU_OR_SKIP();
  for (BoundaryKind k : {BoundaryKind::periodic, BoundaryKind::value, BoundaryKind::gradient}) {
    check_ghost_fill(gpu, k, 1);
    check_ghost_fill(gpu, k, 2);
  }
  check_value_condition_sets_boundary_faces(gpu);
}

TEST(GpuOperators, DivergenceExact) { BOUSS_GPU_OR_SKIP(); check_divergence_exact(gpu); }
TEST(GpuOperators, GradientExact) { BOUSS_GPU_OR_SKIP(); check_gradient_exact(gpu); }
TEST(GpuOperators, LaplacianExact) { BOUSS_GPU_OR_SKIP(); check_laplacian_exact(gpu); }
TEST(GpuOperators, ScalarAdvectionExact) { BOUSS_GPU_OR_SKIP(); check_scalar_advection_exact(gpu); }
TEST(GpuOperators, MomentumAdvectionExact) { BOUSS_GPU_OR_SKIP(); check_momentum_advection_exact(gpu); }
TEST(GpuOperators, BuoyancyExact) { BOUSS_GPU_OR_SKIP(); check_buoyancy_exact(gpu); }

TEST(GpuProjection, LeavesDivergenceAtRoundOffWithPlates) { BOUSS_GPU_OR_SKIP(); check_projection(gpu, projection_case_plates()); }
TEST(GpuProjection, LeavesDivergenceAtRoundOffInAClosedBox) { BOUSS_GPU_OR_SKIP(); check_projection(gpu, projection_case_closed()); }

TEST(GpuProjection, CoarseLevelsOnTheHostGiveTheSameSolveAsAllOnTheDevice) {
  BOUSS_GPU_OR_SKIP();
  Case c = projection_case_plates();
  c.n = {64, 64, 32};
  MultigridOptions all_device, offload;
  all_device.cpu_coarse_cells = 0;
  offload.cpu_coarse_cells = 4096;
  Simulation a(c, gpu, all_device), b(c, gpu, offload);
  ASSERT_FALSE(a.multigrid().level_on_host(1));
  ASSERT_TRUE(b.multigrid().level_on_host(b.multigrid().levels() - 2));
  for (Simulation* s : {&a, &b}) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int comp = 0; comp < 3; ++comp) set_field(s->flow()[comp], s->grid(), [&](double, double, double) { return U(rng); });
    s->fill_all_ghosts();
    s->project(0.1);
  }
  EXPECT_EQ(a.last_solve().cycles, b.last_solve().cycles);
  const std::vector<double> pa = a.host_values("p"), pb = b.host_values("p");
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    diff = std::max(diff, std::fabs(pa[i] - pb[i]));
    scale = std::max(scale, std::fabs(pa[i]));
  }
  EXPECT_LT(diff, 1e-12 * scale);
}

// CPU and CUDA agree after 20 Rayleigh-Benard steps (relative difference below 1e-10).
TEST(GpuAgreement, CpuAndCudaAgreeAfterTwentyRayleighBenardSteps) {
  BOUSS_GPU_OR_SKIP();
  Case c = box_case({32, 32, 16}, {2.0, 2.0, 1.0});
  set_plates(c, VelocityBC::no_slip, 1.0, 0.0);
  c.physics.units = Units::free_fall;
  c.physics.rayleigh = 1e5;
  c.physics.prandtl = 0.71;
  c.physics.nu = std::sqrt(0.71 / 1e5);
  c.physics.kappa = 1 / std::sqrt(1e5 * 0.71);
  c.physics.buoyancy = 1.0;
  c.physics.reference_temperature = 0.5;
  c.initial.profile = TemperatureProfile::conduction;
  c.initial.bottom = 1.0;
  c.initial.top = 0.0;
  c.initial.perturbation_amplitude = 0.05;
  c.time.steps = 20;
  c.time.cfl = 0.5;
  Simulation cpu(c, Backend::cpu()), cuda(c, gpu);
  while (!cpu.finished()) cpu.step();
  while (!cuda.finished()) cuda.step();
  EXPECT_EQ(cpu.time(), cuda.time());
  for (const char* name : {"T", "u", "v", "w", "p"}) {
    const std::vector<double> a = cpu.host_values(name), b = cuda.host_values(name);
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff = std::max(diff, std::fabs(a[i] - b[i]));
      scale = std::max(scale, std::fabs(a[i]));
    }
    EXPECT_GT(scale, 0.0) << name;
    EXPECT_LT(diff, 1e-10 * scale) << name << ": max difference " << diff << " of max " << scale;
  }
}
