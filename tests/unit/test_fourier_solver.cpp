// The Fourier-tridiagonal pressure solver (solver/direct/fourier_solver.hpp) on the CPU (FFTW): the
// same discrete equations as the line multigrid, solved to round-off in one pass, on uniform
// and stretched z, even and odd horizontal sizes, both precisions; `auto` picks it where it
// applies and the rules refuse it elsewhere.
#include "line_solver_checks.hpp"
#include "line_r2r_checks.hpp"
#include "plane_cosine_checks.hpp"
#include "plane_eigen_checks.hpp"

using namespace bouss;
using namespace bouss::test;

template <class R>
class FourierSolverTest : public ::testing::Test {};
TYPED_TEST_SUITE(FourierSolverTest, Precisions);

TYPED_TEST(FourierSolverTest, SolvesTheLineMultigridsEquationsInOnePass) {
  using R = TypeParam;
  const bool dbl = sizeof(R) == sizeof(double);
  // x and y periodic (Fourier transforms), or walled (cosine transforms), in every mix.
  for (const auto& [px, py] : {std::pair{true, true}, std::pair{false, true}, std::pair{true, false}, std::pair{false, false}})
  for (const bool stretched : {false, true})
    for (const std::array<int, 3> n : {std::array<int, 3>{24, 16, 12}, std::array<int, 3>{15, 9, 7}}) {
      SCOPED_TRACE(std::string("x ") + (px ? "periodic" : "walled") + ", y " + (py ? "periodic" : "walled"));
      const Grid g = fourier_grid(stretched, n, sizeof(R));
      const FieldBC bc = pressure_walls(px, py);
      FourierSolver<R> fourier(Backend::cpu(), g, bc);
      Field<R> a(Backend::cpu(), g.layout, Stagger::centre, "a");
      const SolveStats s = solve_random(fourier, g, Backend::cpu(), dbl ? 1e-12 : 1e-5, 8, &a);
      EXPECT_TRUE(s.converged) << stretched << " " << n[0] << ": " << s.residual_history.back();
      // One pass; in float with a wall the cosine transforms' round-off leaves some grids just
      // above 1e-5 after it (1.05-1.7e-5), and one refinement pass takes them below.
      const bool walled = !px || !py;
      EXPECT_LE(s.cycles, dbl || !walled ? 1 : 2) << testing::PrintToString(s.residual_history);
      // The reference in double, to 1e-12: the line multigrid between periodic sides; with a
      // wall in x or y the point multigrid (uniform z: the line multigrid converges by 0.8 a
      // cycle there); a stretched z with walls is checked by the residual above alone.
      const Grid gd = fourier_grid(stretched, n, sizeof(double));
      if (walled && stretched) continue;
      std::unique_ptr<PressureSolver<double>> reference;
      if (walled) reference = std::make_unique<Multigrid<double>>(Backend::cpu(), gd, bc);
      else reference = std::make_unique<LineMultigrid<double>>(Backend::cpu(), gd, bc);
      Field<double> ref(Backend::cpu(), gd.layout, Stagger::centre, "reference");
      const SolveStats rs = solve_random(*reference, gd, Backend::cpu(), 1e-12, 8, &ref);
      ASSERT_TRUE(rs.converged) << testing::PrintToString(rs.residual_history);
      Field<double> ad(Backend::cpu(), gd.layout, Stagger::centre, "a in double");
      const std::vector<R> ha = a.to_host();
      std::vector<double> hd(std::size_t(gd.layout.size), 0.0);  // the float field in the double layout
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i)
            hd[gd.layout.origin + gd.layout.index(i, j, k)] = ha[g.layout.origin + g.layout.index(i, j, k)];
      ad.from_host(hd);
      EXPECT_LT(relative_difference(ad, ref, gd), dbl ? 1e-9 : 1e-4) << stretched << " " << n[0];
    }
}

// In float one direct pass leaves the residual of this stretched grid above 1e-5 (its
// round-off); iterative refinement takes it below, as the run's pressure tolerance asks.
// The plane transforms of a walled box on the CPU (FFTW's plane FFTs between Makhoul's
// reorder and the orbit maps) equal FFTW's own r2r plans; the gpu tests check cuFFT's.
TYPED_TEST(FourierSolverTest, PlaneCosineTransformsEqualFftwsR2r) { check_plane_cosine_equals_fftw<TypeParam>(Backend::cpu()); }
// The pencils' real-to-real line transforms on the CPU (FFTW's line FFTs and the orbit map, or
// the eigenbasis through the system BLAS) equal their defining sums; the gpu tests check cuFFT's
// and cuBLAS's.
TYPED_TEST(FourierSolverTest, LineR2rTransformsEqualTheirSums) { check_line_r2r_equals_its_sums<TypeParam>(Backend::cpu()); }

TEST(FourierSolver, RefinementTakesFloatBelowItsFirstPass) {
  const Grid g = fourier_grid(true, {64, 32, 24}, sizeof(float));
  FourierSolver<float> fourier(Backend::cpu(), g, pressure_walls(true, true));
  const SolveStats loose = solve_random(fourier, g, Backend::cpu(), 1e-3, 4);
  EXPECT_EQ(loose.cycles, 1) << "one pass meets 1e-3";
  const SolveStats s = solve_random(fourier, g, Backend::cpu(), 1e-5, 4);
  EXPECT_TRUE(s.converged) << testing::PrintToString(s.residual_history);
  EXPECT_GE(s.cycles, 2) << testing::PrintToString(s.residual_history);
  EXPECT_GT(s.residual_history[1], 1e-5) << "the first pass alone";
}

// The arrays a run lends the solve (its next state's, holding whatever the last step left)
// carry nothing into it: with lent arrays full of NaN the solution is the one the solver's
// own arrays give, bit for bit, in the refinement passes too (float, stretched z, 1e-5).
TEST(FourierSolver, LentArraysFullOfNaNGiveTheSameBitsAsItsOwn) {
  const Grid g = fourier_grid(true, {64, 32, 24}, sizeof(float));
  const FieldBC bc = pressure_walls(true, true);
  FourierSolver<float> own(Backend::cpu(), g, bc), borrowing(Backend::cpu(), g, bc);
  Field<float> x1(Backend::cpu(), g.layout, Stagger::centre, "x1"), x2(Backend::cpu(), g.layout, Stagger::centre, "x2");
  Field<float> b(Backend::cpu(), g.layout, Stagger::centre, "b");
  fill(x1, 0);
  fill(x2, 0);
  fill(b, 0);
  random_rhs(b, g, 4);
  const std::vector<float> b_given = b.to_host();
  const SolveStats s1 = own.solve(x1, b, 1e-5);
  std::array<Field<float>, LentArrays<float>::capacity> scratch;
  LentArrays<float> lent;
  for (int a = 0; a < LentArrays<float>::capacity; ++a) {
    scratch[a] = Field<float>(Backend::cpu(), g.layout, Stagger::centre, "lent");
    fill(scratch[a], std::nan(""));
    lent.fields[a] = &scratch[a];
  }
  const SolveStats s2 = borrowing.solve_with(x2, b, 1e-5, lent);
  ASSERT_GE(s1.cycles, 2) << "the refinement ran";
  EXPECT_EQ(s1.cycles, s2.cycles);
  // The interior (the arrays' row padding holds whatever the allocation held).
  EXPECT_EQ(interior_values(x1), interior_values(x2));
  EXPECT_EQ(b.to_host(), b_given) << "b is left as given";
}

// A horizontal plane (one cell in z, periodic everywhere): the lines are one row each, and
// the solve is the point multigrid's.
TEST(FourierSolver, OneCellInZ) {
  const Grid g = Grid::make({16, 8, 1}, {0, 0, 0}, {2.0, 1.0, 0.1}, 1, sizeof(double));
  const FieldBC periodic;
  EXPECT_FALSE(solver_refuses("fft", PressureGrid::of(g, periodic)).has_value());
  FourierSolver<double> fourier(Backend::cpu(), g, periodic);
  Multigrid<double> point(Backend::cpu(), g, periodic);
  Field<double> a(Backend::cpu(), g.layout, Stagger::centre, "a"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  EXPECT_TRUE(solve_random(fourier, g, Backend::cpu(), 1e-12, 5, &a).converged);
  ASSERT_TRUE(solve_random(point, g, Backend::cpu(), 1e-12, 5, &b).converged);
  EXPECT_LT(relative_difference(a, b, g), 1e-9);
}

// From auto_multigrid_ranks ranks `auto` passes the direct solve over for the multigrids (the
// scaling model's crossover) where one takes the grid; below, and where none does, the
// direct solve.
TEST(FourierSolver, AutoLeavesItForAMultigridFromManyRanks) {
  const auto pick = [](const Grid& g, const FieldBC& bc, int ranks) {
    PressureGrid p = PressureGrid::of(g, bc);
    p.ranks = ranks;
    return choose_solver("auto", p);
  };
  const Grid g = fourier_grid(false, {64, 64, 32}, 8);
  EXPECT_EQ(pick(g, pressure_walls(true, true), auto_multigrid_ranks - 1).name(), "direct");
  const SolverChoice many = pick(g, pressure_walls(true, true), auto_multigrid_ranks);
  EXPECT_EQ(many.name(), "multigrid");
  EXPECT_NE(many.reason.find(std::to_string(auto_multigrid_ranks) + " ranks"), std::string::npos) << many.reason;
  EXPECT_EQ(pick(g, pressure_walls(false, false), 64).name(), "multigrid");  // walled all round
  // z stretched: the line multigrid.
  EXPECT_EQ(pick(fourier_grid(true, {64, 64, 32}, 8), pressure_walls(true, true), 64).name(), "line_multigrid");
  // A grid no multigrid coarsens, and x stretched (the direct solve's eigenbases alone): direct.
  EXPECT_EQ(pick(Grid::make({127, 127, 63}, {0, 0, 0}, {3.0, 2.0, 1.0}), pressure_walls(true, true), 64).name(), "direct");
  Grid stretched_x = Grid::make({64, 64, 32}, {0, 0, 0}, {3.0, 2.0, 1.0});
  stretched_x.stretch(0, tanh_faces(64, 0.0, 3.0, 1.5, Cluster::both), false);
  EXPECT_EQ(pick(stretched_x, pressure_walls(false, true), 64).name(), "direct");
}

TEST(FourierSolver, AutoPicksItWhereItAppliesAndTheRulesRefuseItElsewhere) {
  const Grid g = fourier_grid(true, {16, 16, 8}, 8);
  EXPECT_EQ(choose_solver("auto", PressureGrid::of(g, pressure_walls(true, true))).name(), "direct");
  // Walls in x or y: cosine transforms along them, the same direct solve.
  EXPECT_EQ(choose_solver("auto", PressureGrid::of(g, pressure_walls(false, true))).name(), "direct");
  EXPECT_EQ(choose_solver("auto", PressureGrid::of(g, pressure_walls(false, false))).name(), "direct");
  EXPECT_FALSE(solver_refuses("fft", PressureGrid::of(g, pressure_walls(false, true))).has_value());
  FieldBC all_periodic;  // periodic everywhere
  const Grid u = fourier_grid(false, {16, 16, 8}, 8);
  EXPECT_EQ(choose_solver("auto", PressureGrid::of(u, all_periodic)).name(), "multigrid");
  EXPECT_TRUE(solver_refuses("fft", PressureGrid::of(u, all_periodic)).has_value());
  // Under several ranks every box, walled or periodic, is solved on the blocks through the
  // slab transposes: tests/mpi/test_fourier.cpp and MpiRuns.TheDirectSolveRunsOnTheBlocksOfEveryBox
  // run it there.
  // "fft", its name before it took walls, still names it.
  EXPECT_EQ(find_solver("fft"), find_solver("direct"));
  EXPECT_EQ(canonical_solver_name("fft"), "direct");
  // A wall with a value (a Dirichlet pressure) is no cosine transform's.
  FieldBC dirichlet_x = pressure_walls(false, true);
  dirichlet_x.face[0] = FaceBC{BoundaryKind::value, 0, 0};
  EXPECT_THROW(FourierSolver<double>(Backend::cpu(), g, dirichlet_x), std::invalid_argument);
}

// The eigenbases of stretched and uniform axes (tests/plane_eigen_checks.hpp), their plane
// transforms through the CPU's BLAS, and the direct solve through them against the FFT and
// cosine transforms' (the gpu tests check cuBLAS's).
TEST(AxisEigenbasis, DiagonalizesTheSecondDifferenceOfStretchedAndUniformAxes) { check_axis_eigenbases(); }
TYPED_TEST(FourierSolverTest, PlaneEigenTransformsRoundTripOnTheInterior) { check_plane_eigen_round_trip<TypeParam>(Backend::cpu()); }
TYPED_TEST(FourierSolverTest, SolvesAGridStretchedAlongXAndYThroughTheirEigenbases) {
  check_eigen_solve_on_stretched_axes<TypeParam>(Backend::cpu());
}
TYPED_TEST(FourierSolverTest, TheSolveThroughEigenbasesEqualsTheFastTransformsOnUniformAxes) {
  check_eigen_solve_equals_fast_transforms<TypeParam>(Backend::cpu());
}
