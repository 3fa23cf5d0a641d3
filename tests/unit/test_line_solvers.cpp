// The vertical-line pressure solver (solver/multigrid/line_multigrid.hpp) on the CPU: convergence
// where the point smoother stalls, counts that do not grow with the horizontal grid, the
// same answer as the point multigrid on a uniform grid, both precisions, stretched z.
#include "line_solver_checks.hpp"

using namespace bouss;
using namespace bouss::test;

// A flat box of 32 x 32 x 16 cells, each `aspect` times wider than tall, walls in x and z.
inline Grid flat_grid(double aspect, int nx = 32, int nz = 16, std::size_t elem = sizeof(double)) {
  const double dz = 1.0 / nz, dx = aspect * dz;
  return Grid::make({nx, nx, nz}, {0, 0, 0}, {nx * dx, nx * dx, 1.0}, 1, elem);
}

// At 1:100 (walls in x, so that no Fourier solver applies) the point smoother leaves the
// vertically coupled error alone; the line smoother removes it, and `auto` picks it.
TEST(LineMultigrid, StaysFastWherePointSmoothingStalls) {
  const Grid g = flat_grid(100);
  const FieldBC bc = pressure_walls(false, true);
  LineMultigrid<double> line(Backend::cpu(), g, bc);
  MultigridOptions mo;
  mo.max_cycles = 12;
  Multigrid<double> point(Backend::cpu(), g, bc, mo);
  const SolveStats l = solve_random(line, g, Backend::cpu(), 1e-8);
  const SolveStats p = solve_random(point, g, Backend::cpu(), 1e-8);
  EXPECT_TRUE(l.converged);
  EXPECT_LE(factor_per_cycle(l), 0.2) << l.cycles << " cycles";
  EXPECT_GT(factor_per_cycle(p), 0.5) << p.cycles << " cycles";
  // auto takes the direct solve on this walled box; of the iterative solvers the line
  // multigrid suits it, and says why; at 1:1 it leaves the box to the point multigrid.
  EXPECT_EQ(choose_solver("auto", PressureGrid::of(g, bc)).name(), "direct");
  const std::optional<std::string> why = find_solver("line_multigrid")->suits(PressureGrid::of(g, bc));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("100 times wider than tall"), std::string::npos) << *why;
  EXPECT_FALSE(find_solver("line_multigrid")->suits(PressureGrid::of(flat_grid(1), bc)).has_value());
}

TEST(LineMultigrid, CyclesDoNotGrowWithTheHorizontalGrid) {
  const FieldBC bc = pressure_walls(true, true);
  int cycles[3];
  int m = 0;
  for (int nx : {16, 32, 64}) {
    const Grid g = flat_grid(8, nx, 16);
    LineMultigrid<double> line(Backend::cpu(), g, bc);
    const SolveStats s = solve_random(line, g, Backend::cpu(), 1e-8);
    EXPECT_TRUE(s.converged) << nx;
    cycles[m++] = s.cycles;
  }
  EXPECT_LE(cycles[2], cycles[0] + 1) << cycles[0] << " " << cycles[1] << " " << cycles[2];
  EXPECT_LE(cycles[2], 8);
}

// The same discrete problem: on a uniform grid both multigrids solve it to the same x.
TEST(LineMultigrid, SolvesTheSameEquationAsThePointMultigrid) {
  const Grid g = flat_grid(1.5, 16, 16);
  const FieldBC bc = pressure_walls(true, false);
  LineMultigrid<double> line(Backend::cpu(), g, bc);
  Multigrid<double> point(Backend::cpu(), g, bc);
  Field<double> a(Backend::cpu(), g.layout, Stagger::centre, "a"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  ASSERT_TRUE(solve_random(line, g, Backend::cpu(), 1e-11, 9, &a).converged);
  ASSERT_TRUE(solve_random(point, g, Backend::cpu(), 1e-11, 9, &b).converged);
  double size = 0;
  const std::vector<double> ha = a.to_host(), hb = b.to_host();
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) size = std::max(size, std::fabs(hb[g.layout.origin + g.layout.index(i, j, k)]));
  EXPECT_GT(size, 0);
  double worst = 0;
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const auto idx = g.layout.origin + g.layout.index(i, j, k);
        worst = std::max(worst, std::fabs(ha[idx] - hb[idx]));
      }
  EXPECT_LT(worst, 1e-8 * size) << "max |x| " << size;
}

// Both precisions; a stretched z (tanh towards both walls, adjacent cells up to 1.3 apart)
// converges as fast as a uniform one.
template <class R>
class LineMultigridPrecision : public ::testing::Test {};
TYPED_TEST_SUITE(LineMultigridPrecision, Precisions);

TYPED_TEST(LineMultigridPrecision, ConvergesOnAStretchedGrid) {
  using R = TypeParam;
  const int n = 32, nz = 24;
  const Grid g = Grid::make_stretched({n, n, nz}, {0, 0, 0}, {4.0, 4.0, 1.0}, tanh_faces(nz, 0.0, 1.0, 2.0, Cluster::both),
                                      1, sizeof(R));
  const FieldBC bc = pressure_walls(true, true);
  LineMultigrid<R> line(Backend::cpu(), g, bc);
  // Float's round-off floor for this residual is near 4e-5 of max|b| (1/dz^2 ~ 1e4 here).
  const double tolerance = sizeof(R) == 4 ? 1e-4 : 1e-10;
  const SolveStats s = solve_random(line, g, Backend::cpu(), tolerance);
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.cycles, sizeof(R) == 4 ? 4 : 10);
  if (sizeof(R) == 8) EXPECT_LE(factor_per_cycle(s), 0.15);
}

// The model problem of papers 000/001 at nu_CFL = 8.4: both line solvers' counts stay flat
// as the horizontal grid grows (its preconditioned condition number is bounded, paper 001
// eq. 8), and they solve the same equation.
TEST(LineSolvers, ModelProblemCountsDoNotGrowWithTheHorizontalGrid) {
  int pcg[3], mg[3], m = 0;
  for (int nx : {32, 64, 128}) {
    ModelProblem mp;
    mp.n = {nx, nx, 8};
    const Grid g = mp.grid(sizeof(double));
    Field<double> a(Backend::cpu(), g.layout, Stagger::centre, "a"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
    const auto cg = model_solver<double>("line_pcg", mp, g, Backend::cpu());
    const auto lm = model_solver<double>("line_multigrid", mp, g, Backend::cpu());
    const SolveStats sc = solve_random(*cg, g, Backend::cpu(), 1e-6, 5, &a);
    const SolveStats sm = solve_random(*lm, g, Backend::cpu(), 1e-6, 5, &b);
    ASSERT_TRUE(sc.converged) << nx;
    ASSERT_TRUE(sm.converged) << nx;
    EXPECT_LT(relative_difference(a, b, g), 1e-4) << nx;
    pcg[m] = sc.cycles;
    mg[m++] = sm.cycles;
  }
  // CG's count approaches its bound from below (60, 76, 79 here: the lowest horizontal mode's
  // eigenvalue nears its limit as h falls); the pressure equation's doubles a doubling.
  const std::string counts = ::testing::PrintToString(pcg) + " " + ::testing::PrintToString(mg);
  EXPECT_LE(pcg[2], 1.1 * pcg[1]) << counts;
  EXPECT_LE(pcg[2], 1.4 * pcg[0]) << counts;
  EXPECT_LE(mg[2], mg[0] + 1) << counts;
  EXPECT_LE(mg[2], 10) << counts;  // paper 001: 1e-5 in at most 10 iterations at nu_CFL = 8.4
}

// The pressure equation (no shift, singular: all walls or periodic) on a stretched z: CG
// solves it to the same x as the line multigrid, and its true residual meets the tolerance.
// Its count grows with the horizontal grid (the condition number of the line-preconditioned
// Laplacian grows like nx^2, CG's count like nx): why `auto` does not pick it.
TEST(LinePcg, SolvesThePressureEquationAndItsCountGrowsWithTheGrid) {
  int counts[2], m = 0;
  for (int n : {16, 32}) {
    const Grid g = Grid::make_stretched({n, n, 16}, {0, 0, 0}, {4.0, 4.0, 1.0}, tanh_faces(16, 0.0, 1.0, 2.0, Cluster::both),
                                        1, sizeof(double));
    const FieldBC bc = pressure_walls(false, true);
    LinePcg<double> cg(Backend::cpu(), g, bc);
    LineMultigrid<double> lm(Backend::cpu(), g, bc);
    Field<double> a(Backend::cpu(), g.layout, Stagger::centre, "a"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
    const SolveStats s = solve_random(cg, g, Backend::cpu(), 1e-10, 7, &a);
    ASSERT_TRUE(s.converged) << n;
    ASSERT_TRUE(solve_random(lm, g, Backend::cpu(), 1e-11, 7, &b).converged);
    EXPECT_LT(relative_difference(a, b, g), 1e-8) << n;
    Field<double> rhs(Backend::cpu(), g.layout, Stagger::centre, "rhs");
    random_rhs(rhs, g, 7);
    remove_volume_mean(g, rhs);
    EXPECT_LE(cg.residual_norm(a, rhs), 1e-10 * max_abs(rhs, g.layout.interior(Stagger::centre)));
    counts[m++] = s.cycles;
  }
  EXPECT_GT(counts[1], 1.4 * counts[0]) << counts[0] << " " << counts[1];
}

// A periodic axis of odd length (the lines then read ghosts, filled each iteration) and a
// Dirichlet wall with data: the same answer as the point multigrid.
TEST(LinePcg, OddPeriodicAxisAndWallData) {
  const Grid g = Grid::make({15, 8, 12}, {0, 0, 0}, {3.0, 1.6, 1.0}, 1, sizeof(double));
  FieldBC bc = pressure_walls(true, false);
  bc.face[2] = FaceBC{BoundaryKind::value, 0.5, 0};
  LinePcg<double> cg(Backend::cpu(), g, bc);
  MultigridOptions mo;
  mo.max_cycles = 200;
  Multigrid<double> point(Backend::cpu(), g, bc, mo);
  Field<double> a(Backend::cpu(), g.layout, Stagger::centre, "a"), b(Backend::cpu(), g.layout, Stagger::centre, "b");
  ASSERT_TRUE(solve_random(cg, g, Backend::cpu(), 1e-11, 2, &a).converged);
  ASSERT_TRUE(solve_random(point, g, Backend::cpu(), 1e-11, 2, &b).converged);
  EXPECT_LT(relative_difference(a, b, g), 1e-8);
}

// Single precision meets a tolerance above its round-off floor on a stretched grid.
TEST(LinePcg, SinglePrecision) {
  const Grid g = Grid::make_stretched({16, 16, 16}, {0, 0, 0}, {4.0, 4.0, 1.0}, tanh_faces(16, 0.0, 1.0, 2.0, Cluster::both),
                                      1, sizeof(float));
  LinePcg<float> cg(Backend::cpu(), g, pressure_walls(true, true));
  const SolveStats s = solve_random(cg, g, Backend::cpu(), 1e-4);
  EXPECT_TRUE(s.converged) << s.cycles;
}
