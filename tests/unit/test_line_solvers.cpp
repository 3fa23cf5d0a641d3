// The vertical-line pressure solver (solver/line_multigrid.hpp) on the CPU: convergence
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
  PressureParams auto_choice;
  auto_choice.solver = "auto";
  const SolverChoice c = choose_pressure_solver(auto_choice, PressureGrid::of(g, bc));
  EXPECT_EQ(c.name, "line_multigrid") << c.reason;
  EXPECT_NE(c.reason.find("100 times wider than tall"), std::string::npos) << c.reason;
  // At 1:1 auto keeps the point multigrid.
  EXPECT_EQ(choose_pressure_solver(auto_choice, PressureGrid::of(flat_grid(1), bc)).name, "multigrid");
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
