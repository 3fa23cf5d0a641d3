// Mathematical boundary conditions of one field and the ghost fill that imposes them.
// Ghost cells are filled by separate kernels after every update (paper 004), never inside
// the stencils; this fill is also the seam where halo exchange between GPUs will plug in.
// grid/README.md has the table mapping physical conditions onto these kinds.
#pragma once

#include <array>

#include "grid/config.hpp"
#include "grid/decomposition.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"

namespace bouss {

enum class BoundaryKind { periodic, value, gradient };

struct FaceBC {
  BoundaryKind kind = BoundaryKind::periodic;
  // value: the field's value on the boundary face. gradient: d(field)/d(x_axis), the
  // derivative along the +axis direction (not the outward normal) at the boundary face.
  double value = 0;
  // Value conditions on x and y faces may vary linearly with height: the boundary value at
  // height z is value + slope_z * (z - z0), z0 the bottom of the domain (conducting walls).
  double slope_z = 0;
  // The rank whose cells lie across this face when the domain is cut there (FieldBC::on_rank),
  // or -1. The kind stays the domain's (a cut periodic axis is still periodic); the ghosts of
  // an exchanged face come from that rank (grid/halo.hpp), and the face's condition applies
  // on the rank at the domain's edge alone.
  int exchange_with = -1;
};

// The one home of the wall rule for cell-centred values: ghost layer m (1, 2, ...) beyond a
// wall is self * inside + offset, `inside` the interior value m cells in from the wall:
//   value    self = -1, offset = 2 v              (the mirror that puts v on the face)
//   gradient self = +1, offset = -/+ (2m - 1) h g (g along +axis; - on the low side, + high)
// The ghost fill applies it (grid/boundary.cu); the multigrid's smoother folds it into its
// stencil (a wall's ghost is self * x_p + offset: solver/multigrid/multigrid.cu), and the coarse
// operator and the CSR baseline put -self / h^2 into the diagonal (solver/multigrid/coarse_operator.cpp,
// tools/baselines.cu). Not for periodic faces.
template <class S>
struct WallGhost {
  S self, offset;
  BOUSS_HD S operator()(S inside) const { return self * inside + offset; }
};
template <class S>
BOUSS_HD inline WallGhost<S> cell_wall_ghost(BoundaryKind kind, S value, S h, int side, int m = 1) {
  if (kind == BoundaryKind::value) return {S(-1), 2 * value};
  const S d = (2 * m - 1) * h * value;
  return {S(1), side ? d : -d};
}

// Faces numbered 2*axis + side: x_lo, x_hi, y_lo, y_hi, z_lo, z_hi.
struct FieldBC {
  std::array<FaceBC, 6> face{};
  // Where both x and y are cut: the rank across each edge of the block, corner_with[sx + 2 sy]
  // across x face sx and y face sy (Decomposition::diagonal), or -1 (grid/halo.hpp's corner
  // columns).
  std::array<int, 4> corner_with{-1, -1, -1, -1};

  bool periodic(int axis) const { return face[2 * axis].kind == BoundaryKind::periodic; }
  // Whether face f's ghosts come from another rank.
  bool exchanged(int f) const { return face[f].exchange_with >= 0; }
  // Whether a periodic axis wraps within this rank's array (periodic and not cut).
  bool wraps(int axis) const { return periodic(axis) && !exchanged(2 * axis) && !exchanged(2 * axis + 1); }
  // The conditions of the whole domain: no face exchanged.
  FieldBC whole() const {
    FieldBC r = *this;
    for (auto& f : r.face) f.exchange_with = -1;
    r.corner_with = {-1, -1, -1, -1};
    return r;
  }
  // The same conditions on one rank's block of a decomposed domain: the faces it shares
  // with other ranks exchange halos.
  FieldBC on_rank(const Decomposition& d) const {
    FieldBC r = *this;
    for (int f = 0; f < 6; ++f) r.face[f].exchange_with = d.exchanges(f) ? d.neighbour[f] : -1;
    for (int e = 0; e < 4; ++e) r.corner_with[e] = d.diagonal(e & 1, e >> 1);
    return r;
  }
  // No value condition anywhere: the Laplacian has the constants in its null space.
  bool singular() const {
    for (const auto& f : face)
      if (f.kind == BoundaryKind::value) return false;
    return true;
  }
  // The same kinds with zero data: the condition a correction or an error satisfies.
  FieldBC homogeneous() const {
    FieldBC h = *this;
    for (auto& f : h.face) f.value = f.slope_z = 0;
    return h;
  }
};

// Fills every ghost layer of `f` (and, for face fields under a value condition, the
// boundary faces themselves) from its interior values, axis by axis (x, then y, then z),
// each sweep covering the other axes' ghosts too, so edges and corners are consistent.
// Faces exchanged with other ranks (FaceBC::exchange_with) take their ghosts, and a face
// field its duplicate face n, from the neighbour's interior (grid/halo.hpp), in the same
// axis order; every rank of a decomposed run makes the call.
// The grid's spacings (at a z wall, the wall cell's thickness) enter gradient conditions,
// its heights the z-varying side-wall values. Instantiated for double and float fields.
template <class S>
void fill_ghosts(Field<S>& f, const FieldBC& bc, const Grid& g);

// The same for up to max_fill_fields fields of one layout and backend at once (the
// velocity components and temperature, say): one launch per axis instead of one per axis
// and field. fields[q] is filled under bcs[q].
constexpr int max_fill_fields = 4;
template <class S>
void fill_ghosts(Field<S>* const fields[], const FieldBC* const bcs[], int count, const Grid& g);

// The values a field's update must compute: all points, except boundary faces fixed by
// a value condition (normal velocity at a wall) and the periodic duplicate face n.
Box unknown_box(const Layout& layout, Stagger s, const FieldBC& bc);

}  // namespace bouss
