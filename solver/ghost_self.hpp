// How a relaxation sweep sees the faces of one level (GhostSelf, solver/multigrid/multigrid_kernels.hpp):
// the walls folded into its update by the one wall rule (grid/boundary.hpp cell_wall_ghost),
// even periodic axes read across the wrap. Shared by the point multigrid's red-black sweeps
// and the line solvers' zebra sweeps (solver/multigrid/line_multigrid.cu).
#pragma once

#include <stdexcept>

#include "grid/boundary.hpp"
#include "grid/grid.hpp"
#include "solver/multigrid/multigrid_kernels.hpp"

namespace bouss {

// The faces of one level as the red-black sweep sees them (see GhostSelf). The data of a
// wall is that of fill_ghosts for cell-centred values with one ghost layer.
template <class S>
inline GhostSelf<S> ghost_self(const FieldBC& bc, const Grid& g) {
  GhostSelf<S> gs{};
  for (int a = 0; a < 3; ++a) {
    const int n = g.layout.n[a];
    for (int side = 0; side < 2; ++side) {
      const FaceBC& f = bc.face[2 * a + side];
      if (f.slope_z != 0) throw std::logic_error("multigrid: a wall value varying with z is not supported");
      signed char self = 0;
      S data = 0;
      if (f.exchange_with >= 0) {
        // A face cut between ranks: its ghosts are the neighbour's cells, filled by the
        // exchange before each colour, whatever the domain's condition on that side.
      } else if (f.kind != BoundaryKind::periodic) {  // grid/boundary.hpp cell_wall_ghost
        // The wall cell's spacing (a stretched axis's width of its first or last cell).
        const double h = g.width(a, side ? n - 1 : 0);
        const WallGhost<double> ghost = cell_wall_ghost(f.kind, f.value, h, side);
        self = static_cast<signed char>(ghost.self);
        data = S(ghost.offset);
      } else if (n == 1) {
        self = 1;
      }
      (side ? gs.hi : gs.lo)[a] = self;
      (side ? gs.data_hi : gs.data_lo)[a] = data;
    }
    gs.wrap[a] = bc.wraps(a) && n > 1 && n % 2 == 0;
  }
  return gs;
}

// Whether a sweep reads ghosts: along a periodic axis of odd length > 1 (neither a wall
// nor wrapped), or across a face cut between ranks, whose ghosts are filled (exchanged)
// before each colour. Either side: a block at a wall of a cut axis exchanges the other
// (every rank of a cut axis says yes, so that all of them exchange).
template <class S>
inline bool sweeps_read_ghosts(const GhostSelf<S>& gs) {
  for (int a = 0; a < 3; ++a)
    if ((gs.lo[a] == 0 || gs.hi[a] == 0) && !gs.wrap[a]) return true;
  return false;
}

// Whether every ghost a sweep reads is across a face cut between ranks (no periodic axis of
// odd length uncut): then the exchange of the cut faces alone (grid/halo.hpp
// exchange_cut_faces) serves before each colour.
template <class S>
inline bool sweeps_read_only_cut_ghosts(const GhostSelf<S>& gs, const FieldBC& bc) {
  for (int a = 0; a < 3; ++a)
    if ((gs.lo[a] == 0 || gs.hi[a] == 0) && !gs.wrap[a] && !bc.exchanged(2 * a) && !bc.exchanged(2 * a + 1))
      return false;
  return true;
}

}  // namespace bouss
