// Run under mpirun with 1 to 4 ranks (tests/CMakeLists.txt): the halo exchange and the
// reductions of a grid cut over the ranks give what the whole grid gives on one rank.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "mpi_support.hpp"

namespace bouss {
namespace {

// A value for every global point (I, J, K) and staggering, no two alike.
double value_at(int I, int J, int K, int s) { return std::sin(0.37 * I + 1.3 * s) + 0.01 * J * J - 0.3 * K + 0.001 * I * J * K; }

template <class S>
void set_from_globals(Field<S>& f, const Grid& g) {
  const std::array<int, 3> o = g.offset();
  const View<S> v = f.view();
  const Box box = g.layout.interior(f.stagger());
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) v(i, j, k) = S(value_at(i + o[0], j + o[1], k + o[2], int(f.stagger())));
}

// Conditions of every kind: x periodic, y walls (a value varying with height below, a
// gradient above), z walls (value below, gradient above).
FieldBC mixed_conditions() {
  FieldBC bc;
  bc.face[2] = {BoundaryKind::value, 0.25, 0.5};
  bc.face[3] = {BoundaryKind::gradient, -0.75};
  bc.face[4] = {BoundaryKind::value, 1.0};
  bc.face[5] = {BoundaryKind::gradient, 0.5};
  return bc;
}
// Walls on x too (value on both sides), y periodic.
FieldBC walled_x_conditions() {
  FieldBC bc;
  bc.face[0] = {BoundaryKind::value, 0.0};
  bc.face[1] = {BoundaryKind::value, 2.0};
  bc.face[4] = {BoundaryKind::gradient, 0.0};
  bc.face[5] = {BoundaryKind::gradient, 0.0};
  return bc;
}

template <class S>
void check_every_ghost(const FieldBC& bc, const std::array<int, 3>& n) {
  const Communicator& world = *Communicator::world();
  const Grid whole = Grid::make(n, {0, 0, 0}, {2.0, 1.5, 1.0}, 1, sizeof(S));
  const std::array<bool, 3> periodic{bc.periodic(0), bc.periodic(1), bc.periodic(2)};
  for (const std::array<int, 2>& dims : process_grids(world.size(), n)) {
    const Decomposition d = Decomposition::make(n, periodic, world.size(), world.rank(), dims);
    const Grid part = whole.part(d);
    const Backend here = Backend::cpu().with_ranks(Communicator::world());
    for (int s = 0; s < 4; ++s) {
      const Stagger st = Stagger(s);
      Field<S> w(Backend::cpu(), whole.layout, st, "whole"), p(here, part.layout, st, "part");
      fill(w, 0.0);
      fill(p, -99.0);
      set_from_globals(w, whole);
      set_from_globals(p, part);
      fill_ghosts(w, bc, whole);
      fill_ghosts(p, bc.on_rank(d), part);
      const Box padded = part.layout.padded(st);
      const View<const S> pv = p.cview(), wv = w.cview();
      int wrong = 0;
      for (int k = padded.lo[2]; k < padded.hi[2]; ++k)
        for (int j = padded.lo[1]; j < padded.hi[1]; ++j)
          for (int i = padded.lo[0]; i < padded.hi[0]; ++i) {
            const S got = pv(i, j, k), want = wv(i + d.offset[0], j + d.offset[1], k);
            if (got != want && ++wrong <= 5)
              ADD_FAILURE() << "rank " << world.rank() << " of " << d.describe() << ", " << stagger_name(st)
                            << " point (" << i << ", " << j << ", " << k << "): " << got << ", the whole grid's " << want;
          }
      EXPECT_EQ(wrong, 0) << stagger_name(st) << " on " << d.describe();
      // Reductions over the ranks' interiors give the whole grid's.
      const Box mine = unknown_box(part.layout, st, bc.on_rank(d)), all = unknown_box(whole.layout, st, bc);
      EXPECT_NEAR(sum(p, mine), sum(w, all), 1e-12 * std::max(1.0, std::abs(sum(w, all))));
      EXPECT_EQ(max_abs(p, mine), max_abs(w, all));
    }
  }
}

TEST(MpiHalo, EveryGhostAsTheWholeGridFillsIt) {
  check_every_ghost<double>(mixed_conditions(), {16, 12, 6});
  check_every_ghost<double>(walled_x_conditions(), {24, 8, 4});
  check_every_ghost<float>(mixed_conditions(), {16, 12, 6});
}

}  // namespace
}  // namespace bouss
