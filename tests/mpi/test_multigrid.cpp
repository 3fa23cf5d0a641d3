// Run under mpirun with 1 to 4 ranks: the multigrids on the ranks' blocks (the point
// multigrid and the line multigrid: their first levels cut over the ranks, halos exchanged
// before each colour, the coarser levels gathered onto rank 0) take the cycles of one rank's,
// with the same residual after each, and give its solution, on every process grid and
// wherever the levels are gathered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "mpi_support.hpp"
#include "grid/gather.hpp"
#include "grid/stretching.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "solver/line/line_pcg.hpp"
#include "solver/multigrid/multigrid.hpp"

namespace bouss {
namespace {

// A right-hand side with every scale, from the global cell indices.
double rhs_at(int I, int J, int K) {
  return std::sin(0.7 * I + 0.2 * J) * std::cos(0.45 * K) + 0.3 * std::cos(1.9 * J - 0.4 * I) + 0.01 * ((I * 7 + J * 3 + K) % 5);
}

void set_rhs(Field<double>& b, const Grid& g) {
  const std::array<int, 3> o = g.offset();
  const View<double> v = b.view();
  const Box box = g.layout.interior(Stagger::centre);
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) v(i, j, k) = rhs_at(i + o[0], j + o[1], k + o[2]);
}

struct Problem {
  std::string name;
  std::array<int, 3> n;
  FieldBC bc;
  MultigridOptions opt;
  // The line multigrid (with opt's agglomerate_below) or line-preconditioned CG instead of
  // the point multigrid, and the grid's z faces (stretched) where given.
  bool lines = false;
  std::vector<double> z_faces = {};
  bool cg = false;
};

std::unique_ptr<PressureSolver<double>> make_solver(const Problem& p, const Backend& backend, const Grid& grid,
                                                    const FieldBC& bc) {
  if (p.cg) return std::make_unique<LinePcg<double>>(backend, grid, bc, LinePcgOptions{});
  if (!p.lines) return std::make_unique<Multigrid<double>>(backend, grid, bc, p.opt);
  LineMultigridOptions o;
  o.agglomerate_below = p.opt.agglomerate_below;
  return std::make_unique<LineMultigrid<double>>(backend, grid, bc, o);
}

int levels_on_the_ranks(const Problem& p, const Grid& part) {
  if (p.cg) return 1;
  if (!p.lines) return Multigrid<double>::levels_on_the_ranks(part, p.opt);
  LineMultigridOptions o;
  o.agglomerate_below = p.opt.agglomerate_below;
  return LineMultigrid<double>::levels_on_the_ranks(part, o);
}

// The pressure's conditions: walls (zero gradient) in z, x and y periodic or walled.
FieldBC pressure_conditions(bool walled_x, bool walled_y) {
  FieldBC bc;
  if (walled_x) bc.face[0] = bc.face[1] = {BoundaryKind::gradient, 0.0};
  if (walled_y) bc.face[2] = bc.face[3] = {BoundaryKind::gradient, 0.0};
  bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0.0};
  return bc;
}

struct Solved {
  SolveStats stats;
  std::vector<double> x;  // the whole grid's interior, on rank 0
};

Solved solve(const Problem& p, const Backend& backend, const Grid& grid, const FieldBC& bc) {
  Field<double> x(backend, grid.layout, Stagger::centre, "x"), b(backend, grid.layout, Stagger::centre, "b");
  fill(x, 0);
  fill(b, 0);
  set_rhs(b, grid);
  Solved s;
  s.stats = make_solver(p, backend, grid, bc)->solve(x, b, 1e-10);
  s.x = gather_interior(interior_values(x), Stagger::centre, grid, backend.ranks(), 0);
  return s;
}

void check_against_one_rank(const Problem& p) {
  const auto world = Communicator::world();
  const Grid whole = p.z_faces.empty() ? Grid::make(p.n, {0, 0, 0}, {2.0, 1.0, 0.5})
                                      : Grid::make_stretched(p.n, {0, 0, 0}, {2.0, 1.0, 0.5}, p.z_faces);
  Solved one;
  if (world->rank() == 0) one = solve(p, Backend::cpu(), whole, p.bc);
  const std::array<bool, 3> periodic{p.bc.periodic(0), p.bc.periodic(1), p.bc.periodic(2)};
  for (const std::array<int, 2>& dims : process_grids(world->size(), p.n)) {
    const Decomposition d = Decomposition::make(p.n, periodic, world->size(), world->rank(), dims);
    const Grid part = whole.part(d);
    const Solved cut = solve(p, Backend::cpu().with_ranks(world), part, p.bc.on_rank(d));
    if (world->rank() != 0) continue;
    const std::string on = p.name + " on " + d.describe() + ", " +
                           std::to_string(levels_on_the_ranks(p, part)) + " levels on the ranks";
    // EXPECT, never ASSERT, past the collectives: rank 0 leaving the loop early would leave
    // the other ranks waiting in the next process grid's.
    EXPECT_TRUE(one.stats.converged) << on;
    EXPECT_TRUE(cut.stats.converged) << on;
    EXPECT_EQ(cut.stats.cycles, one.stats.cycles) << on;
    if (cut.stats.residual_history.size() != one.stats.residual_history.size()) continue;
    // The residual after each cycle, to round-off of the problem's scale (the first residual,
    // max|b|): the ranks sum b's mean in another order, a difference of 1e-16 that the
    // cycles carry while the residual falls to 1e-10 of it. Float cycles round each
    // correction to float, where such a difference may cross a rounding boundary: a few
    // ulps (6e-8) of corrections that are 1e-5 of the first residual by then.
    const double r0 = one.stats.residual_history[0], round_off = p.opt.mixed_precision ? 1e-11 : 1e-13;
    for (std::size_t c = 0; c < one.stats.residual_history.size(); ++c)
      EXPECT_NEAR(cut.stats.residual_history[c], one.stats.residual_history[c], round_off * r0) << on << ", cycle " << c;
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < one.x.size(); ++i) {
      scale = std::max(scale, std::abs(one.x[i]));
      diff = std::max(diff, std::abs(cut.x[i] - one.x[i]));
    }
    EXPECT_LE(diff, 1e-12 * scale) << on;
  }
}

MultigridOptions options(int agglomerate_below, bool mixed = false, bool fmg = false) {
  MultigridOptions o;
  o.agglomerate_below = agglomerate_below;
  o.mixed_precision = mixed;
  o.fmg = fmg;
  return o;
}

// Periodic x and y (the Rayleigh-Benard pressure): gathered at once (the default), after some
// levels, and as late as the blocks allow (blocks of one cell: odd offsets on 3 ranks).
TEST(MpiMultigrid, PeriodicSidesTakeOneRanksCycles) {
  for (int below : {32, 4, 1})
    check_against_one_rank({"periodic x, y; agglomerate_below " + std::to_string(below), {32, 32, 16},
                            pressure_conditions(false, false), options(below)});
}

TEST(MpiMultigrid, WallsAndUnevenBlocksTakeOneRanksCycles) {
  for (int below : {4, 1})
    check_against_one_rank({"walled x, periodic y; agglomerate_below " + std::to_string(below), {48, 24, 8},
                            pressure_conditions(true, false), options(below)});
  check_against_one_rank({"walls everywhere, 3x2^k cells", {24, 12, 16}, pressure_conditions(true, true), options(2)});
}

TEST(MpiMultigrid, FloatCyclesAndFullMultigridTakeOneRanksCycles) {
  check_against_one_rank({"fp32 cycles in fp64 defect correction", {32, 16, 16}, pressure_conditions(true, false),
                          options(2, true)});
  check_against_one_rank({"FMG start", {32, 16, 16}, pressure_conditions(false, true), options(2, false, true)});
}

// A solve of fixed passes on the blocks (the means combined across the ranks on the stream,
// the gathered levels by the backend's messages: what the step replays as one graph under
// ranks) leaves x and b with the bits of the checked solve that took as many cycles on the
// same ranks: fp64 cycles and fp32 cycles in fp64 defect correction, levels gathered early and
// late, periodic and walled sides.
TEST(MpiMultigrid, TheSolveOfFixedPassesOnTheBlocksIsTheCheckedSolves) {
  const auto world = Communicator::world();
  const Backend backend = Backend::cpu().with_ranks(world);
  for (const bool walled : {false, true})
    for (const bool mixed : {false, true})
      for (const int below : {32, 2}) {
        const std::array<int, 3> n{32, 16, 16};
        const FieldBC bc = pressure_conditions(walled, walled);
        const Grid whole = Grid::make(n, {0, 0, 0}, {2.0, 1.0, 0.5});
        for (const std::array<int, 2>& dims : process_grids(world->size(), n)) {
          const Decomposition d = Decomposition::make(n, {!walled, !walled, false}, world->size(), world->rank(), dims);
          const Grid part = whole.part(d);
          MultigridOptions o = options(below, mixed);
          o.cpu_coarse_cells = 0;
          Multigrid<double> checked_solver(backend, part, bc.on_rank(d), o), fixed_solver(backend, part, bc.on_rank(d), o);
          const std::string on = std::string(walled ? "walled" : "periodic") + (mixed ? ", fp32 cycles" : "") +
                                 ", agglomerate_below " + std::to_string(below) + " on " + d.describe();
          EXPECT_TRUE(fixed_solver.solves_in_fixed_passes()) << on;
          Field<double> x1(backend, part.layout, Stagger::centre, "x1"), x2(backend, part.layout, Stagger::centre, "x2");
          Field<double> b1(backend, part.layout, Stagger::centre, "b1"), b2(backend, part.layout, Stagger::centre, "b2");
          for (Field<double>* f : {&x1, &x2, &b1, &b2}) fill(*f, 0);
          set_rhs(b1, part);
          set_rhs(b2, part);
          const SolveStats checked = checked_solver.solve(x1, b1, 1e-9);
          EXPECT_TRUE(checked.converged) << on;
          EXPECT_GE(checked.cycles, 3) << on;
          const SolveStats fixed = fixed_solver.solve_passes(x2, b2, checked.cycles, LentArrays<double>{});
          EXPECT_EQ(fixed.cycles, checked.cycles) << on;
          EXPECT_EQ(interior_values(x2), interior_values(x1)) << "the solve of fixed passes is not the checked solve's, " << on;
          EXPECT_EQ(interior_values(b2), interior_values(b1)) << "b's mean was not taken out alike, " << on;
        }
      }
}

// The line multigrid (zebra vertical lines, x and y halved): gathered at once, late, and with
// every level on the ranks (blocks of one column: odd offsets on 3 ranks), walls and a
// stretched z.
TEST(MpiLineMultigrid, TakesOneRanksCycles) {
  for (int below : {32, 4, 1})
    check_against_one_rank({"lines, periodic x, y; agglomerate_below " + std::to_string(below), {32, 32, 16},
                            pressure_conditions(false, false), options(below), true});
  check_against_one_rank({"lines, walled x, stretched z", {48, 24, 16}, pressure_conditions(true, false), options(2), true,
                          tanh_faces(16, 0.0, 0.5, 2.0, Cluster::both)});
}

// Line-preconditioned CG: its dot products summed across the ranks, the vertical lines of
// its preconditioner within them: one rank's iterations.
TEST(MpiLinePcg, TakesOneRanksIterations) {
  check_against_one_rank({"line pcg, walled x, stretched z", {48, 24, 16}, pressure_conditions(true, false), options(32),
                          false, tanh_faces(16, 0.0, 0.5, 2.0, Cluster::both), true});
  check_against_one_rank({"line pcg, periodic x, y", {32, 32, 16}, pressure_conditions(false, false), options(32), false,
                          {}, true});
}

}  // namespace
}  // namespace bouss
