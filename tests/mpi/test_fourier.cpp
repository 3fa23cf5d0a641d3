// Run under mpirun with 1 to 4 ranks: the direct solve of a grid cut over the ranks (z slabs
// and bands of modes, solver/direct/slab_transform.hpp) gives one rank's solution on every
// process grid: a periodic box (the FFT), walled ones (cosine transforms), stretched x and y
// (eigenbases), uneven slabs and bands, more ranks than z levels, one y row, a stretched z,
// float.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "grid/stretching.hpp"
#include "mpi_support.hpp"
#include "grid/gather.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/direct/pencil_transform.hpp"

namespace bouss {
namespace {

double rhs_at(int I, int J, int K) {
  return std::sin(0.7 * I + 0.2 * J) * std::cos(0.45 * K) + 0.3 * std::cos(1.9 * J - 0.4 * I) + 0.01 * ((I * 7 + J * 3 + K) % 5);
}

template <class R>
struct Solved {
  SolveStats stats;
  std::vector<double> x;  // the whole grid's interior, on rank 0
};

template <class R>
Solved<R> solve(const Backend& backend, const Grid& grid, const FieldBC& bc, double tolerance, bool eigenbases) {
  Field<R> x(backend, grid.layout, Stagger::centre, "x"), b(backend, grid.layout, Stagger::centre, "b");
  fill(x, 0);
  fill(b, 0);
  const std::array<int, 3> o = grid.offset();
  const View<R> v = b.view();
  const Box box = grid.layout.interior(Stagger::centre);
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) v(i, j, k) = R(rhs_at(i + o[0], j + o[1], k + o[2]));
  FourierSolver<R> fft(backend, grid, bc, eigenbases);
  Solved<R> s;
  s.stats = fft.solve(x, b, tolerance);
  s.x = gather_interior(interior_values(x), Stagger::centre, grid, backend.ranks(), 0);
  return s;
}

// The pressure's conditions: zero-gradient walls in z, and along x and y where walled, else
// periodic.
FieldBC pressure_conditions(bool walled_x = false, bool walled_y = false) {
  FieldBC bc;
  bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0.0};
  if (walled_x) bc.face[0] = bc.face[1] = {BoundaryKind::gradient, 0.0};
  if (walled_y) bc.face[2] = bc.face[3] = {BoundaryKind::gradient, 0.0};
  return bc;
}

template <class R>
void check_against_one_rank(const std::string& name, const Grid& whole, double tolerance, double agreement,
                            const FieldBC& bc = pressure_conditions(), bool eigenbases = false) {
  const auto world = Communicator::world();
  const std::array<int, 3> n = whole.layout.n;
  Solved<R> one;
  if (world->rank() == 0) one = solve<R>(Backend::cpu(), whole, bc, tolerance, eigenbases);
  const std::array<bool, 3> periodic{bc.face[0].kind == BoundaryKind::periodic, bc.face[2].kind == BoundaryKind::periodic,
                                     false};
  for (const std::array<int, 2>& dims : process_grids(world->size(), n)) {
    const Decomposition d = Decomposition::make(n, periodic, world->size(), world->rank(), dims);
    const Grid part = whole.part(d);
    const Solved<R> cut = solve<R>(Backend::cpu().with_ranks(world), part, bc.on_rank(d), tolerance, eigenbases);
    if (world->rank() != 0) continue;  // EXPECT only past the collectives
    const std::string on = name + " on " + d.describe();
    EXPECT_TRUE(one.stats.converged) << on;
    EXPECT_TRUE(cut.stats.converged) << on;
    EXPECT_EQ(cut.stats.cycles, one.stats.cycles) << on;
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < one.x.size(); ++i) {
      scale = std::max(scale, std::abs(one.x[i]));
      diff = std::max(diff, std::abs(cut.x[i] - one.x[i]));
    }
    EXPECT_LE(diff, agreement * scale) << on;
  }
}

TEST(MpiFourier, TransposedSolvesGiveOneRanksSolution) {
  check_against_one_rank<double>("32x16x8", Grid::make({32, 16, 8}, {0, 0, 0}, {2.0, 1.0, 0.5}), 1e-10, 1e-12);
  // Slabs and bands of unequal size on 3 and 4 ranks (12 rows, 9 levels), odd nx.
  check_against_one_rank<double>("15x12x9", Grid::make({15, 12, 9}, {0, 0, 0}, {1.5, 1.0, 0.75}), 1e-10, 1e-12);
  const std::vector<double> faces = tanh_faces(8, 0.0, 1.0, 1.5, Cluster::both);
  check_against_one_rank<double>("stretched z", Grid::make_stretched({16, 16, 8}, {0, 0, 0}, {1.0, 1.0, 1.0}, faces),
                                 1e-10, 1e-12);
}

// Walled boxes: the cosine transforms on the slabs, real bands of modes; walls along x, along
// y, along both, and the eigenbases of x and y (a stretched x, and uniform axes asked to).
TEST(MpiFourier, WalledAndStretchedBoxesGiveOneRanksSolution) {
  const Grid g = Grid::make({16, 12, 8}, {0, 0, 0}, {2.0, 1.0, 0.5});
  check_against_one_rank<double>("walled x", g, 1e-10, 1e-12, pressure_conditions(true, false));
  check_against_one_rank<double>("walled y", g, 1e-10, 1e-12, pressure_conditions(false, true));
  check_against_one_rank<double>("walled x and y", Grid::make({15, 12, 9}, {0, 0, 0}, {1.5, 1.0, 0.75}), 1e-10, 1e-12,
                                 pressure_conditions(true, true));
  check_against_one_rank<double>("eigenbases, walled x", g, 1e-10, 1e-12, pressure_conditions(true, false), true);
  Grid stretched = Grid::make({16, 12, 8}, {0, 0, 0}, {2.0, 1.0, 0.5});
  stretched.stretch(0, tanh_faces(16, 0.0, 2.0, 1.5, Cluster::both), false);
  check_against_one_rank<double>("stretched x", stretched, 1e-10, 1e-12, pressure_conditions(true, true));
}

// More ranks than z levels (slabs without a level), a grid of one y row (2D: bands cut
// across the one row's modes) and a grid of one z level.
TEST(MpiFourier, MoreRanksThanLevelsOrRowsStillTranspose) {
  check_against_one_rank<double>("32x32x2", Grid::make({32, 32, 2}, {0, 0, 0}, {1.0, 1.0, 0.1}), 1e-10, 1e-12);
  check_against_one_rank<double>("32x32x2 walled", Grid::make({32, 32, 2}, {0, 0, 0}, {1.0, 1.0, 0.1}), 1e-10, 1e-12,
                                 pressure_conditions(true, true));
  check_against_one_rank<double>("2D 32x1x16 walled x", Grid::make({32, 1, 16}, {0, 0, 0}, {2.0, 0.0625, 1.0}), 1e-10,
                                 1e-12, pressure_conditions(true, false));
  check_against_one_rank<double>("2D 32x1x3", Grid::make({32, 1, 3}, {0, 0, 0}, {2.0, 0.0625, 1.0}), 1e-10, 1e-12);
  // One level (an x-y plane): cut along y, its y lines solved across the ranks without z lines.
  check_against_one_rank<double>("2D 32x16x1", Grid::make({32, 16, 1}, {0, 0, 0}, {2.0, 1.0, 0.0625}), 1e-10, 1e-12);
  check_against_one_rank<double>("2D 32x16x1 walled", Grid::make({32, 16, 1}, {0, 0, 0}, {2.0, 1.0, 0.0625}), 1e-10,
                                 1e-12, pressure_conditions(true, true));
}

// The pencils in pieces (each piece's all-to-all apart, its y lines transformed as it
// arrives and before it leaves) give the band of one piece and the field back, bit for bit,
// on uneven pieces too; the round trip is the transforms' scale (nx ny; 2nx 2ny walled): a
// periodic box's complex spectrum and a walled box's real one (cosine transforms, Makhoul's
// reorder in the copies).
TEST(MpiFourier, PencilsInPiecesGiveTheBandOfOnePiece) {
  const auto world = Communicator::world();
  const int p = world->size();
  if (p < 2) GTEST_SKIP() << "pencils cut y over two ranks or more";
  const Grid whole = Grid::make({32, 16, 12}, {0, 0, 0}, {2.0, 1.0, 0.5});
  const Decomposition d = Decomposition::make(whole.layout.n, {true, true, false}, p, world->rank(), {1, p});
  const Grid part = whole.part(d);
  const Backend be = Backend::cpu().with_ranks(world);
  Field<double> f(be, part.layout, Stagger::centre, "f"), a(be, part.layout, Stagger::centre, "a"),
      b(be, part.layout, Stagger::centre, "b"), back(be, part.layout, Stagger::centre, "back");
  fill(f, 0);
  const View<double> v = f.view();
  const Box box = part.layout.interior(Stagger::centre);
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) v(i, j, k) = rhs_at(i, j + d.offset[1], k);
  using A = AxisTransform;
  for (const std::array<A, 2> kinds : {std::array<A, 2>{A::periodic, A::periodic}, std::array<A, 2>{A::walled, A::walled}}) {
    const bool walled = kinds[0] == A::walled;
    SCOPED_TRACE(walled ? "walled" : "periodic");
    std::vector<std::vector<double>> bands, backs;
    for (int pieces : {1, 2, 3, 5}) {
      PencilTransform<double> t(be, part, pieces, kinds);
      std::vector<double> band(t.band_values());
      t.forward(f, band.data(), a.data(), b.data());
      bands.push_back(band);
      fill(back, 0);
      t.inverse(band.data(), back, a.data(), b.data());
      backs.push_back(interior_values(back));
    }
    for (std::size_t q = 1; q < bands.size(); ++q) {
      EXPECT_EQ(bands[q], bands[0]) << "band of piece count " << q;
      EXPECT_EQ(backs[q], backs[0]) << "field of piece count " << q;
    }
    const double round_trip = axis_transform_scale(kinds[0], 32) * axis_transform_scale(kinds[1], 16);
    const std::vector<double> given = interior_values(f);
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < given.size(); ++i) {
      scale = std::max(scale, std::abs(given[i]));
      diff = std::max(diff, std::abs(backs[0][i] / round_trip - given[i]));
    }
    EXPECT_LE(diff, 1e-14 * scale) << "rank " << world->rank();
  }
}

// Float: its refinement passes (the solve's round-off against a float tolerance) taken alike.
TEST(MpiFourier, FloatSolvesGiveOneRanksSolution) {
  check_against_one_rank<float>("fp32 32x16x8", Grid::make({32, 16, 8}, {0, 0, 0}, {2.0, 1.0, 0.5}, 1, sizeof(float)),
                                2e-5, 1e-5);
  check_against_one_rank<float>("fp32 walled x", Grid::make({32, 16, 8}, {0, 0, 0}, {2.0, 1.0, 0.5}, 1, sizeof(float)),
                                2e-5, 1e-5, pressure_conditions(true, false));
}

// The bench's traffic model of the y split (a uniform box cut 1xP): a pass reads and writes
// 24 values a cell of the block (YSplitSolve::values_per_solve: the copies in and out, x's
// FFT and orbit map each way, z's FFT each way, the ends' sweeps, the join's), 20 without z
// lines, where one rank's periodic solve moves about 9 (its plane FFT each way and the
// complex mode solves): the split's extra passes are in the floor its runs are measured
// against.
TEST(MpiFourier, TheYSplitsTrafficIsItsPasses) {
  const auto world = Communicator::world();
  if (world->size() < 2) GTEST_SKIP() << "the y split cuts y over 2 to 8 ranks";
  for (const int nz : {8, 1}) {
    const std::array<int, 3> n{32, 4 * world->size(), nz};
    const Grid whole = Grid::make(n, {0, 0, 0}, {2.0, 1.0, 0.5});
    const Decomposition d = Decomposition::make(n, {true, true, false}, world->size(), world->rank(), {1, world->size()});
    const Grid part = whole.part(d);
    ASSERT_TRUE(FourierSolver<double>::splits_y(part));
    FourierSolver<double> fft(Backend::cpu().with_ranks(world), part, pressure_conditions().on_rank(d));
    const double cells = double(part.layout.cells());
    EXPECT_EQ(fft.bytes_per_solve(SolveStats::unchecked(1)), (nz > 1 ? 24 : 20) * cells * sizeof(double)) << "nz " << nz;
  }
}

}  // namespace
}  // namespace bouss
