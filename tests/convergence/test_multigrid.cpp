// The multigrid solver's convergence: a grid-independent factor per V-cycle of at most
// 0.1 on periodic, Neumann and mixed problems; convergence on non-cubic and odd-factor
// grids; and FMG alone reaching the discretization error (second order).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "grid/field_ops.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "multigrid_checks.hpp"
#include "test_support.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {

FieldBC conditions(const std::string& kind) {
  FieldBC bc;
  if (kind == "neumann")
    for (auto& f : bc.face) f = {BoundaryKind::gradient, 0};
  if (kind == "mixed") bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0};
  return bc;
}

// A random right-hand side on a grid laid out for R, solved from x = 0. With `roundoff`,
// the relative residual at which the solve is at round-off (multigrid_checks.hpp).
template <class R = double>
SolveStats solve_random(const std::array<int, 3>& n, const FieldBC& bc, MultigridOptions opt, double tol,
                        double* residual_ratio = nullptr, double* roundoff = nullptr) {
  const int nmax = std::max({n[0], n[1], n[2]});
  const std::array<double, 3> length = {double(n[0]) / nmax, double(n[1]) / nmax, double(n[2]) / nmax};
  const Grid g = Grid::make(n, {0, 0, 0}, length, 1, sizeof(R));
  Multigrid<R> mg(Backend::cpu(), g, bc, opt);
  Field<R> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x, 0);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> U(-1, 1);
  set_field(b, g, [&](double, double, double) { return U(rng); });
  const SolveStats s = mg.solve(x, b, tol);
  if (residual_ratio)
    *residual_ratio = mg.residual_norm(x, b) / max_abs(b, g.layout.interior(Stagger::centre));
  if (roundoff) *roundoff = residual_roundoff(g, x, b);
  return s;
}

}  // namespace

// The V-cycle's factor in both precisions: MultigridConvergence.*<double> and <float>. In
// double the solve runs to 1e-10 and every cycle counts; in float to 1e-4 (its round-off
// level here is 1.5e-6 to 5.3e-6, multigrid_checks.hpp residual_roundoff), and the factor
// counts while the residual stays above ten times that level: the first two cycles.
template <class R>
class MultigridConvergence : public ::testing::Test {};
TYPED_TEST_SUITE(MultigridConvergence, Precisions);

TYPED_TEST(MultigridConvergence, VCycleFactorAtMostOneTenthIndependentOfGrid) {
  using R = TypeParam;
  const double tolerance = sizeof(R) == sizeof(float) ? 1e-4 : 1e-10;
  MultigridOptions opt;
  opt.fmg = false;  // V-cycles alone, from x = 0
  for (const char* kind : {"periodic", "neumann", "mixed"})
    for (int n : {32, 64}) {
      double roundoff = 0;
      const SolveStats s = solve_random<R>({n, n, n}, conditions(kind), opt, tolerance, nullptr, &roundoff);
      ASSERT_TRUE(s.converged) << kind << " " << n;
      const std::vector<double> factors = factors_above_roundoff(s.residual_history, roundoff, 10);
      ASSERT_GE(factors.size(), 2u) << kind << " " << n << ": cycles measured above round-off";
      if (sizeof(R) == sizeof(double))
        EXPECT_EQ(factors.size() + 1, s.residual_history.size()) << kind << " " << n << ": every cycle counts";
      const double worst = *std::max_element(factors.begin(), factors.end());
      std::printf("%-8s %3d^3 in %s: %d V(2,2) cycles to %.0e, worst factor %.3f over %zu (round-off %.1e)\n", kind,
                  n, precision_name<R>(), s.cycles, tolerance, worst, factors.size(), roundoff);
      EXPECT_LE(worst, 0.1) << kind << " " << n;
    }
}

TEST(MultigridConvergence, DiscreteSolutionSatisfiesTheDiscreteEquationToTheTolerance) {
  for (bool mixed : {false, true}) {
    MultigridOptions opt;
    opt.mixed_precision = mixed;
    double ratio = 1;
    const SolveStats s = solve_random({32, 24, 16}, conditions("mixed"), opt, 1e-9, &ratio);
    ASSERT_TRUE(s.converged);
    EXPECT_LE(ratio, 1e-9) << "mixed precision " << mixed;
    EXPECT_GT(ratio, 0.0);
  }
}

TEST(MultigridConvergence, NonCubicAndOddFactorGridsConverge) {
  MultigridOptions opt;
  opt.fmg = false;
  // 96x48x24 -> ... -> 3x3x3; 40x24x12 stops at 5x3x3; 64x16x8 coarsens z and y first.
  for (const std::array<int, 3> n : {std::array<int, 3>{96, 48, 24}, {40, 24, 12}, {64, 16, 8}, {24, 24, 96}})
    for (const char* kind : {"periodic", "mixed", "neumann"}) {
      const SolveStats s = solve_random(n, conditions(kind), opt, 1e-10);
      EXPECT_TRUE(s.converged) << n[0] << "x" << n[1] << "x" << n[2] << " " << kind;
      EXPECT_LE(s.cycles, 12) << n[0] << "x" << n[1] << "x" << n[2] << " " << kind;
    }
}

namespace {

// lap(u) = f with u = cos(2 pi x) cos(2 pi y) cos(pi z) on the unit cube: periodic in x
// and y, Neumann at z = 0 and 1. Returns max |u_h - u| after FMG alone (one FMG pass)
// and after full convergence.
std::pair<double, double> fmg_errors(int n) {
  const Grid g = Grid::make({n, n, n}, {0, 0, 0}, {1, 1, 1});
  const FieldBC bc = conditions("mixed");
  auto u = [](double x, double y, double z) { return std::cos(2 * M_PI * x) * std::cos(2 * M_PI * y) * std::cos(M_PI * z); };
  const double k2 = 9 * M_PI * M_PI;
  double errors[2];
  for (int full = 0; full < 2; ++full) {
    MultigridOptions opt;
    opt.fmg = true;
    opt.max_cycles = full ? 50 : 1;  // the FMG pass counts as the first cycle
    Multigrid<double> mg(Backend::cpu(), g, bc, opt);
    Field<double> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
    fill(x, 0);
    set_field(b, g, [&](double X, double Y, double Z) { return -k2 * u(X, Y, Z); });
    const SolveStats s = mg.solve(x, b, 1e-13);
    EXPECT_TRUE(s.fmg);
    errors[full] = max_error(x, g, g.layout.interior(Stagger::centre), u);
  }
  return {errors[0], errors[1]};
}

}  // namespace

TEST(MultigridConvergence, FullMultigridAloneReachesDiscretizationAccuracy) {
  double fmg[3], exact[3];
  const int sizes[3] = {16, 32, 64};
  for (int r = 0; r < 3; ++r) {
    const auto [e_fmg, e_converged] = fmg_errors(sizes[r]);
    fmg[r] = e_fmg;
    exact[r] = e_converged;
    std::printf("n = %d: error after FMG %.3e, converged %.3e\n", sizes[r], e_fmg, e_converged);
    EXPECT_LT(e_fmg, 1.2 * e_converged) << "FMG is within 20% of the discretization error at n = " << sizes[r];
  }
  for (int r = 0; r < 2; ++r) EXPECT_NEAR(std::log2(fmg[r] / fmg[r + 1]), 2.0, 0.1);
}

namespace {

// max |x - u| over the cells, after removing each one's mean when `up_to_constant`.
double solution_error(const Field<double>& x, const Grid& g, const std::function<double(double, double, double)>& u,
                      bool up_to_constant) {
  const Box box = g.layout.interior(Stagger::centre);
  Field<double> exact(Backend::cpu(), g.layout, Stagger::centre, "exact");
  set_field(exact, g, u);
  const double shift = up_to_constant ? (sum(x, box) - sum(exact, box)) / double(box.cells()) : 0;
  set_field(exact, g, [&](double X, double Y, double Z) { return u(X, Y, Z) + shift; });
  return max_error(x, g, box, [&](double X, double Y, double Z) { return u(X, Y, Z) + shift; });
}

// Wall data that is not zero, which the smoother folds into its update (it reads no wall
// ghosts): x = 0 and 1 at fixed values 2 and 3 (periodic y and z), or d/dz = 1 at z = 0
// and 1 (periodic x and y, solution up to a constant; the same gradient at both ends, since
// the singular solve makes b mean-free and so assumes no net flux through the walls). Converged to 1e-12, the
// error against the exact solution falls at second order, in fp64 and mixed precision.
double wall_data_error(int n, bool dirichlet, bool mixed) {
  const Grid g = Grid::make({n, n, n}, {0, 0, 0}, {1, 1, 1});
  FieldBC bc;
  std::function<double(double, double, double)> u, f;
  const double pi = M_PI;
  if (dirichlet) {
    bc.face[0] = {BoundaryKind::value, 2};
    bc.face[1] = {BoundaryKind::value, 3};
    u = [=](double x, double y, double z) { return 2 + x + std::sin(pi * x) * std::cos(2 * pi * y) * std::cos(2 * pi * z); };
    f = [=](double x, double y, double z) { return -9 * pi * pi * std::sin(pi * x) * std::cos(2 * pi * y) * std::cos(2 * pi * z); };
  } else {
    bc.face[4] = {BoundaryKind::gradient, 1};
    bc.face[5] = {BoundaryKind::gradient, 1};
    u = [=](double x, double y, double z) { return z + std::cos(2 * pi * x) * std::cos(2 * pi * y) * std::cos(pi * z); };
    f = [=](double x, double y, double z) { return -9 * pi * pi * std::cos(2 * pi * x) * std::cos(2 * pi * y) * std::cos(pi * z); };
  }
  MultigridOptions opt;
  opt.mixed_precision = mixed;
  opt.max_cycles = 60;
  Multigrid<double> mg(Backend::cpu(), g, bc, opt);
  Field<double> x(Backend::cpu(), g.layout, Stagger::centre, "x"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x, 0);
  set_field(b, g, f);
  const SolveStats s = mg.solve(x, b, 1e-12);
  EXPECT_TRUE(s.converged) << "n " << n << (dirichlet ? " value" : " gradient") << (mixed ? " mixed" : "");
  return solution_error(x, g, u, !dirichlet);
}

}  // namespace

TEST(MultigridConvergence, NonzeroWallValuesAndGradientsConvergeAtSecondOrder) {
  for (bool dirichlet : {true, false})
    for (bool mixed : {false, true}) {
      const double e16 = wall_data_error(16, dirichlet, mixed), e32 = wall_data_error(32, dirichlet, mixed);
      std::printf("%s walls%s: error %.3e (16^3), %.3e (32^3), order %.2f\n", dirichlet ? "value" : "gradient",
                  mixed ? ", mixed precision" : "", e16, e32, std::log2(e16 / e32));
      EXPECT_NEAR(std::log2(e16 / e32), 2.0, 0.15);
      EXPECT_LT(e32, 1e-2);
    }
}
