// Run under mpirun with 1 to 4 ranks (tests/CMakeLists.txt): the halo exchange and the
// reductions of a grid cut over the ranks give what the whole grid gives on one rank.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "grid/halo.hpp"
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

// The whole grid filled on one rank (w) and this rank's block of it on the process grid dims
// (p, its ghosts -99 before) after exchange_cut_faces(p, corners).
struct CutFacesExchanged {
  Decomposition d;
  Grid part;
  FieldBC mine;
  Field<double> w, p;
};
CutFacesExchanged cut_faces_exchanged(const Grid& whole, const FieldBC& bc, const std::array<int, 2>& dims,
                                      bool corners) {
  const Communicator& world = *Communicator::world();
  CutFacesExchanged r;
  r.d = Decomposition::make(whole.layout.n, {bc.periodic(0), bc.periodic(1), false}, world.size(), world.rank(), dims);
  r.part = whole.part(r.d);
  r.mine = bc.on_rank(r.d);
  const Backend here = Backend::cpu().with_ranks(Communicator::world());
  r.w = Field<double>(Backend::cpu(), whole.layout, Stagger::centre, "whole");
  r.p = Field<double>(here, r.part.layout, Stagger::centre, "part");
  fill(r.w, 0.0);
  fill(r.p, -99.0);
  set_from_globals(r.w, whole);
  set_from_globals(r.p, r.part);
  fill_ghosts(r.w, bc, whole);
  exchange_cut_faces(r.p, r.mine, corners);
  return r;
}

// The cut faces alone (what a sweep reads before a colour): every ghost across a cut face is
// the neighbour's cell, as the whole grid's fill has it (y periodic: across the wrap too);
// the ghosts at walls and the z planes keep what they held (the edges are not the sweeps').
TEST(MpiHalo, TheCutFacesAloneFillEveryCutFaceAndNothingElse) {
  const Communicator& world = *Communicator::world();
  const std::array<int, 3> n{16, 12, 4};
  const FieldBC bc = walled_x_conditions();  // x walled, y periodic, z walls
  const Grid whole = Grid::make(n, {0, 0, 0}, {2.0, 1.5, 1.0});
  for (const std::array<int, 2>& dims : process_grids(world.size(), n)) {
    const CutFacesExchanged cut = cut_faces_exchanged(whole, bc, dims, false);
    const Decomposition& d = cut.d;
    const Grid& part = cut.part;
    const FieldBC& mine = cut.mine;
    const Field<double>&w = cut.w, &p = cut.p;
    const Box padded = part.layout.padded(Stagger::centre);
    const View<const double> pv = p.cview(), wv = w.cview();
    int wrong = 0, faces = 0;
    for (int k = padded.lo[2]; k < padded.hi[2]; ++k)
      for (int j = padded.lo[1]; j < padded.hi[1]; ++j)
        for (int i = padded.lo[0]; i < padded.hi[0]; ++i) {
          const bool in_x = i >= 0 && i < part.layout.n[0], in_y = j >= 0 && j < part.layout.n[1];
          const bool in_z = k >= 0 && k < n[2];
          if (int(!in_x) + int(!in_y) + int(!in_z) > 1) continue;  // an edge or corner: not the sweeps'
          // outside along one axis at most: the interior, a face ghost of x or y, a z plane's
          const bool cut = (!in_x && (i < 0 ? mine.exchanged(0) : mine.exchanged(1))) ||
                           (!in_y && (j < 0 ? mine.exchanged(2) : mine.exchanged(3)));
          faces += cut;
          const bool whole_value = (in_x && in_y && in_z) || cut;
          const double got = pv(i, j, k), want = whole_value ? wv(i + d.offset[0], j + d.offset[1], k) : -99.0;
          if (got != want && ++wrong <= 5)
            ADD_FAILURE() << "rank " << world.rank() << " of " << d.describe() << " point (" << i << ", " << j << ", " << k
                          << "): " << got << ", expected " << want << (cut ? " (a cut face)" : "");
        }
    EXPECT_EQ(faces > 0, world.size() > 1) << "on " << d.describe();
    EXPECT_EQ(wrong, 0) << "on " << d.describe();
  }
}

// The cut faces with their corner columns, two ghost layers (what the multigrid's two-layer
// sweeps read): every layer of a cut face beside the interior and the first layer's cell where
// two cut faces meet are the neighbours' cells, as the whole grid's fill has them; nothing
// else changes. Needs x and y both cut (4 ranks: 2x2).
TEST(MpiHalo, TheCutFacesWithCornersFillTheFirstLayersEdgeCells) {
  const Communicator& world = *Communicator::world();
  const std::array<int, 3> n{16, 12, 4};
  FieldBC periodic_xy;
  periodic_xy.face[4] = periodic_xy.face[5] = {BoundaryKind::gradient, 0.0};
  int checked = 0;
  for (const FieldBC& bc : {periodic_xy, walled_x_conditions()}) {
    const Grid whole = Grid::make(n, {0, 0, 0}, {2.0, 1.5, 1.0}, 2);
    for (const std::array<int, 2>& dims : process_grids(world.size(), n)) {
      if (dims[0] == 1 || dims[1] == 1) continue;
      const CutFacesExchanged cut = cut_faces_exchanged(whole, bc, dims, true);
      const Decomposition& d = cut.d;
      const Grid& part = cut.part;
      const FieldBC& mine = cut.mine;
      const Field<double>&w = cut.w, &p = cut.p;
      const Box padded = part.layout.padded(Stagger::centre);
      const int nx = part.layout.n[0], ny = part.layout.n[1];
      const View<const double> pv = p.cview(), wv = w.cview();
      int wrong = 0, corners = 0;
      for (int k = padded.lo[2]; k < padded.hi[2]; ++k)
        for (int j = padded.lo[1]; j < padded.hi[1]; ++j)
          for (int i = padded.lo[0]; i < padded.hi[0]; ++i) {
            const bool in_x = i >= 0 && i < nx, in_y = j >= 0 && j < ny, in_z = k >= 0 && k < n[2];
            const bool cut_x = !in_x && (i < 0 ? mine.exchanged(0) : mine.exchanged(1));
            const bool cut_y = !in_y && (j < 0 ? mine.exchanged(2) : mine.exchanged(3));
            const bool edge = cut_x && cut_y && (i == -1 || i == nx) && (j == -1 || j == ny);
            corners += edge && in_z;
            const bool whole_value = in_z && ((in_x && in_y) || (cut_x && in_y) || (cut_y && in_x) || edge);
            // The whole grid's value at the global point, across the periodic wrap.
            const int I = (i + d.offset[0] + n[0]) % n[0], J = (j + d.offset[1] + n[1]) % n[1];
            const double got = pv(i, j, k), want = whole_value ? wv(I, J, k) : -99.0;
            if (!in_z && !(in_x && in_y)) continue;  // z's ghost planes beyond the faces: neither's
            if (got != want && ++wrong <= 5)
              ADD_FAILURE() << "rank " << world.rank() << " of " << d.describe() << " point (" << i << ", " << j << ", "
                            << k << "): " << got << ", expected " << want << (edge ? " (an edge cell)" : "");
          }
      EXPECT_GT(corners, 0) << "on " << d.describe();
      EXPECT_EQ(wrong, 0) << "on " << d.describe();
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "x and y are cut together on 4 ranks alone";
}

}  // namespace
}  // namespace bouss
