// Observed order of accuracy in space: the error of a decaying mode against its exact
// solution at three resolutions, with time steps small enough (dt ~ h^2) that AB2's error
// stays far below the spatial one. Second order means log2(e(h)/e(h/2)) = 2 +- 0.1.
#include <gtest/gtest.h>

#include <cmath>

#include "grid/field_ops.hpp"
#include "grid/stretching.hpp"
#include "physics/flow.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "model/flow_simulation.hpp"
#include "test_support.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {

double run_to_end(Simulation& sim) {
  while (!sim.finished()) sim.step();
  return sim.time();
}

// T = cos(2 pi x) cos(2 pi y) diffusing at rest: T(t) = exp(-8 pi^2 kappa t) T(0).
double diffusion_error(int n) {
  const double kappa = 1.0, h = 1.0 / n;
  Case c = box_case({n, n, 1}, {1.0, 1.0, 1.0}, 1.0, kappa, 0.0);
  c.time.steps.reset();
  c.time.end = 0.02;
  c.time.dt = 0.1 * h * h / kappa;
  FlowSimulation<double> sim(c, Backend::cpu());
  auto T0 = [](double x, double y, double) { return std::cos(2 * M_PI * x) * std::cos(2 * M_PI * y); };
  set_field(sim.flow().T, sim.grid(), T0);
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-8 * M_PI * M_PI * kappa * t);
  return max_error(sim.flow().T, sim.grid(), sim.grid().layout.interior(Stagger::centre),
                   [&](double x, double y, double z) { return decay * T0(x, y, z); });
}

// The Taylor-Green vortex u = sin x cos y, v = -cos x sin y on [0, 2 pi]^2: the nonlinear
// terms are balanced by the pressure and the flow decays as exp(-2 nu t).
double taylor_green_error(int n) {
  const double nu = 0.05, L = 2 * M_PI, h = L / n;
  Case c = box_case({n, n, 1}, {L, L, L / n}, nu, 0.0, 0.0);
  c.time.steps.reset();
  c.time.end = 1.0;
  c.time.dt = 0.25 * h * h;
  c.pressure.tolerance = 1e-11;
  FlowSimulation<double> sim(c, Backend::cpu());
  set_field(sim.flow().u, sim.grid(), [](double x, double y, double) { return std::sin(x) * std::cos(y); });
  set_field(sim.flow().v, sim.grid(), [](double x, double y, double) { return -std::cos(x) * std::sin(y); });
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-2 * nu * t);
  const Layout& Lay = sim.grid().layout;
  const double eu = max_error(sim.flow().u, sim.grid(), Lay.interior(Stagger::face_x),
                              [&](double x, double y, double) { return decay * std::sin(x) * std::cos(y); });
  const double ev = max_error(sim.flow().v, sim.grid(), Lay.interior(Stagger::face_y),
                              [&](double x, double y, double) { return -decay * std::cos(x) * std::sin(y); });
  return std::fmax(eu, ev);
}

// The tendencies of smooth fields on an x-z grid of n x 2 x n cells with z tanh-stretched
// towards both walls (beta = 1.5: adjacent cells differ by up to 1.18 at n = 32), against
// their exact values: max error over the unknowns of T (diffusion of T alone; its advection
// by a vertical velocity) and of w (its self-advection and diffusion). Ghosts are set from
// the same functions, so the check is of the interior stencils on the stretched spacing.
struct StretchedErrors {
  double diffusion = 0, advection = 0, momentum = 0;
};
StretchedErrors stretched_tendency_errors(int n) {
  const Grid g = Grid::make_stretched({n, 2, n}, {0, 0, 0}, {1, 1, 1}, tanh_faces(n, 0.0, 1.0, 1.5, Cluster::both));
  const Backend be = Backend::cpu();
  FlowFields<double> now = FlowFields<double>::make(be, g.layout, ""), G = FlowFields<double>::make(be, g.layout, " G"),
                     next = FlowFields<double>::make(be, g.layout, " next");
  std::array<Box, 4> all;
  for (int c = 0; c < 4; ++c) {
    fill(now[c], 0);
    fill(G[c], 0);
    all[c] = g.layout.interior(c == 3 ? Stagger::centre : Stagger(c + 1));
  }
  const double pi = M_PI, k2 = 2 * pi;
  StretchedErrors e;
  Coefficients c;
  c.kappa = 1;
  auto T = [&](double x, double, double z) { return std::cos(pi * z) * (1 + 0.5 * std::sin(k2 * x)); };
  set_field(now.T, g, T);
  advance_ab2(g, c, 1.0, 1.0, 0.0, now, G, next, all);
  // Away from the plates: next to one, the mirrored ghost cell breaks the smoothness of the
  // spacing, and the truncation error there is first order (the solution's stays second
  // order: Convergence.PoissonOnAStretchedGridIsSecondOrder).
  Box inner = all[3];
  inner.lo[2] += 1;
  inner.hi[2] -= 1;
  e.diffusion = max_error(G.T, g, inner, [&](double x, double y, double z) {
    return -pi * pi * T(x, y, z) - std::cos(pi * z) * 0.5 * k2 * k2 * std::sin(k2 * x);
  });
  // w = sin(pi z)(1 + 0.3 cos 2 pi x), T = cos(pi z): -d(wT)/dz; w's own tendency
  // -d(w^2)/dz + nu lap w with nu = 1.
  c.kappa = 0;
  c.nu = 1;
  auto a = [&](double x) { return 1 + 0.3 * std::cos(k2 * x); };
  set_field(now.T, g, [&](double, double, double z) { return std::cos(pi * z); });
  set_field(now.w, g, [&](double x, double, double z) { return std::sin(pi * z) * a(x); });
  advance_ab2(g, c, 1.0, 1.0, 0.0, now, G, next, all);
  e.advection = max_error(G.T, g, all[3], [&](double x, double, double z) { return -a(x) * pi * std::cos(2 * pi * z); });
  e.momentum = max_error(G.w, g, all[2], [&](double x, double, double z) {
    const double w = std::sin(pi * z) * a(x);
    return -a(x) * a(x) * pi * std::sin(2 * pi * z) - pi * pi * w - 0.3 * k2 * k2 * std::cos(k2 * x) * std::sin(pi * z);
  });
  return e;
}

// lap p = -3 pi^2 p for p = cos(pi x) cos(pi y) cos(pi z) on the unit cube with walls (the
// pressure's Neumann condition), z tanh-stretched; solved by the line multigrid. The error
// of the solution against p's samples, both with their volume mean removed.
double stretched_poisson_error(int n) {
  const Grid g = Grid::make_stretched({n, n, n}, {0, 0, 0}, {1, 1, 1}, tanh_faces(n, 0.0, 1.0, 1.5, Cluster::both));
  FieldBC bc;
  for (int f = 0; f < 6; ++f) bc.face[f] = FaceBC{BoundaryKind::gradient, 0, 0};
  const Backend be = Backend::cpu();
  LineMultigrid<double> solver(be, g, bc);
  Field<double> x(be, g.layout, Stagger::centre, "x"), b(be, g.layout, Stagger::centre, "b");
  fill(x, 0);
  auto p = [](double x, double y, double z) { return std::cos(M_PI * x) * std::cos(M_PI * y) * std::cos(M_PI * z); };
  set_field(b, g, [&](double x, double y, double z) { return -3 * M_PI * M_PI * p(x, y, z); });
  EXPECT_TRUE(solver.solve(x, b, 1e-12).converged);
  double mean = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        mean += p(g.coordinate(Stagger::centre, 0, i), g.coordinate(Stagger::centre, 1, j), g.z_centre(k)) * g.cell_volume(k);
  return max_error(x, g, g.layout.interior(Stagger::centre), [&](double x, double y, double z) { return p(x, y, z) - mean; });
}

// lap p = -(kx^2 + ky^2 + pi^2) p for p = cos(kx x) cos(ky y) cos(pi z) on the unit cube:
// along a periodic axis k = 2 pi, along a walled one (the pressure's Neumann condition) k = pi;
// walls at z, z uniform or tanh-stretched; solved by the direct solver (Fourier or cosine
// transforms) in precision R. The error against p's samples (their volume mean is 0: the
// cosines' cell-centre samples sum to 0 on either kind of axis).
template <class R>
double fourier_poisson_error(int n, bool stretched, bool walled_x = false, bool walled_y = false) {
  const std::array<int, 3> shape{n, n, n};
  const Grid g = stretched ? Grid::make_stretched(shape, {0, 0, 0}, {1, 1, 1}, tanh_faces(n, 0.0, 1.0, 1.5, Cluster::both),
                                                  1, sizeof(R))
                           : Grid::make(shape, {0, 0, 0}, {1, 1, 1}, 1, sizeof(R));
  FieldBC bc;  // periodic, but for the walls
  bc.face[4] = bc.face[5] = FaceBC{BoundaryKind::gradient, 0, 0};
  if (walled_x) bc.face[0] = bc.face[1] = FaceBC{BoundaryKind::gradient, 0, 0};
  if (walled_y) bc.face[2] = bc.face[3] = FaceBC{BoundaryKind::gradient, 0, 0};
  const double kx = walled_x ? M_PI : 2 * M_PI, ky = walled_y ? M_PI : 2 * M_PI;
  const Backend be = Backend::cpu();
  FourierSolver<R> solver(be, g, bc);
  Field<R> x(be, g.layout, Stagger::centre, "x"), b(be, g.layout, Stagger::centre, "b");
  fill(x, 0);
  auto p = [=](double x, double y, double z) { return std::cos(kx * x) * std::cos(ky * y) * std::cos(M_PI * z); };
  set_field(b, g, [&](double x, double y, double z) { return -(kx * kx + ky * ky + M_PI * M_PI) * p(x, y, z); });
  // Float: the residual of a smooth solution computed in float stalls near 2.4e-5 of max|b| at
  // 32^3 stretched (its own round-off), whatever the solve.
  const SolveStats s = solver.solve(x, b, sizeof(R) == 4 ? 1e-4 : 1e-12);
  EXPECT_TRUE(s.converged) << s.residual_history.back();
  return max_error(x, g, g.layout.interior(Stagger::centre), p);
}

// A case of n x 1 x n cells on [0, L] x [0, 1] x [0, L], periodic in x and y, walls at z
// (velocity v, insulating), z tanh-stretched towards both walls, the line multigrid.
Case stretched_xz_case(int n, double L, double nu, double kappa, VelocityBC v) {
  Case c = box_case({n, 1, n}, {L, 1.0, L}, nu, kappa, 0.0);
  c.faces[4] = wall(v, TemperatureBC::insulating, 0);
  c.faces[5] = wall(v, TemperatureBC::insulating, 0);
  c.axis_faces[2] = tanh_faces(n, 0.0, L, 1.2, Cluster::both);
  c.stretching[2] = "tanh";
  c.pressure.solver = "line_multigrid";
  c.time.steps.reset();
  return c;
}

// T = cos(pi z) cos(2 pi x) between insulating plates: it decays as exp(-5 pi^2 kappa t).
double stretched_diffusion_error(int n) {
  Case c = stretched_xz_case(n, 1.0, 0.0, 1.0, VelocityBC::free_slip);
  const double h = 1.0 / n;
  c.time.end = 0.01;
  c.time.dt = 0.02 * h * h;  // the thinnest cell is about 0.4 h
  FlowSimulation<double> sim(c, Backend::cpu());
  auto T0 = [](double x, double, double z) { return std::cos(M_PI * z) * std::cos(2 * M_PI * x); };
  set_field(sim.flow().T, sim.grid(), T0);
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-5 * M_PI * M_PI * t);
  return max_error(sim.flow().T, sim.grid(), sim.grid().layout.interior(Stagger::centre),
                   [&](double x, double y, double z) { return decay * T0(x, y, z); });
}

// Taylor-Green in x-z between free-slip plates at z = 0 and pi: u = sin x cos z,
// w = -cos x sin z (w = 0 and du/dz = 0 at the plates), decaying as exp(-2 nu t).
double stretched_taylor_green_error(int n) {
  const double nu = 0.05, L = 2 * M_PI;
  Case c = stretched_xz_case(n, L, nu, 0.0, VelocityBC::free_slip);
  c.extent[2] = {0.0, M_PI};
  c.axis_faces[2] = tanh_faces(n, 0.0, M_PI, 1.2, Cluster::both);
  const double h = M_PI / n;
  c.time.end = 0.5;
  c.time.dt = 0.25 * h * h;
  c.pressure.tolerance = 1e-11;
  FlowSimulation<double> sim(c, Backend::cpu());
  set_field(sim.flow().u, sim.grid(), [](double x, double, double z) { return std::sin(x) * std::cos(z); });
  set_field(sim.flow().w, sim.grid(), [](double x, double, double z) { return -std::cos(x) * std::sin(z); });
  sim.fill_all_ghosts();
  const double t = run_to_end(sim);
  const double decay = std::exp(-2 * nu * t);
  const Layout& Lay = sim.grid().layout;
  const double eu = max_error(sim.flow().u, sim.grid(), Lay.interior(Stagger::face_x),
                              [&](double x, double, double z) { return decay * std::sin(x) * std::cos(z); });
  const double ew = max_error(sim.flow().w, sim.grid(), Lay.interior(Stagger::face_z),
                              [&](double x, double, double z) { return -decay * std::cos(x) * std::sin(z); });
  return std::fmax(eu, ew);
}

void expect_second_order(const double e[3], const char* what) {
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  std::printf("%s: errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", what, e[0], e[1], e[2], p1, p2);
  EXPECT_NEAR(p1, 2.0, 0.1) << what;
  EXPECT_NEAR(p2, 2.0, 0.1) << what;
}

}  // namespace

TEST(Convergence, DiffusingModeIsSecondOrderInSpace) {
  const double e[3] = {diffusion_error(16), diffusion_error(32), diffusion_error(64)};
  expect_second_order(e, "diffusion");
}

TEST(Convergence, OperatorsOnAStretchedGridAreSecondOrder) {
  const StretchedErrors e[3] = {stretched_tendency_errors(32), stretched_tendency_errors(64),
                                stretched_tendency_errors(128)};
  const double diffusion[3] = {e[0].diffusion, e[1].diffusion, e[2].diffusion};
  const double advection[3] = {e[0].advection, e[1].advection, e[2].advection};
  const double momentum[3] = {e[0].momentum, e[1].momentum, e[2].momentum};
  expect_second_order(diffusion, "diffusion of T on a stretched z");
  expect_second_order(advection, "advection of T on a stretched z");
  expect_second_order(momentum, "advection and diffusion of w on a stretched z");
}

TEST(Convergence, PoissonOnAStretchedGridIsSecondOrder) {
  const double e[3] = {stretched_poisson_error(16), stretched_poisson_error(32), stretched_poisson_error(64)};
  expect_second_order(e, "Poisson on a stretched z (line multigrid)");
}

TEST(Convergence, FourierSolverIsSecondOrderOnUniformAndStretchedGrids) {
  for (const bool stretched : {false, true}) {
    const double e[3] = {fourier_poisson_error<double>(16, stretched), fourier_poisson_error<double>(32, stretched),
                         fourier_poisson_error<double>(64, stretched)};
    expect_second_order(e, stretched ? "Poisson by the Fourier solver, stretched z" : "Poisson by the Fourier solver");
  }
  // In float the same errors, to float's round-off (1e-4 of them at most).
  const double e32 = fourier_poisson_error<float>(32, true), e64 = fourier_poisson_error<double>(32, true);
  EXPECT_NEAR(e32, e64, 1e-3 * e64 + 1e-5);
}

// The cosine transforms along walled axes: walls in x, in y and in both, uniform and stretched z.
TEST(Convergence, DirectSolverWithWallsIsSecondOrder) {
  for (const auto& [wx, wy] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}})
    for (const bool stretched : {false, true}) {
      const double e[3] = {fourier_poisson_error<double>(16, stretched, wx, wy),
                           fourier_poisson_error<double>(32, stretched, wx, wy),
                           fourier_poisson_error<double>(64, stretched, wx, wy)};
      const std::string what = std::string("Poisson by the direct solver, walls in ") + (wx ? "x" : "") +
                               (wy ? "y" : "") + (stretched ? ", stretched z" : "");
      expect_second_order(e, what.c_str());
    }
  const double e32 = fourier_poisson_error<float>(32, true, true, true), e64 = fourier_poisson_error<double>(32, true, true, true);
  EXPECT_NEAR(e32, e64, 1e-3 * e64 + 1e-5);
}

TEST(Convergence, DiffusionOnAStretchedGridIsSecondOrder) {
  const double e[3] = {stretched_diffusion_error(16), stretched_diffusion_error(32), stretched_diffusion_error(64)};
  expect_second_order(e, "diffusion on a stretched z");
}

TEST(Convergence, TaylorGreenInXZOnAStretchedGridIsSecondOrder) {
  const double e[3] = {stretched_taylor_green_error(16), stretched_taylor_green_error(32),
                       stretched_taylor_green_error(64)};
  expect_second_order(e, "Taylor-Green in x-z on a stretched z");
}

TEST(Convergence, TaylorGreenVortexIsSecondOrderInSpace) {
  const double e[3] = {taylor_green_error(16), taylor_green_error(32), taylor_green_error(64)};
  expect_second_order(e, "Taylor-Green");
}
