// Pointwise multigrid kernels (cell-centred, 7-point Laplacian), templated on the
// precision S of the level. See solver/multigrid/multigrid.hpp.
#pragma once

#include <cstddef>

#include "grid/config.hpp"
#include "grid/difference_kernels.hpp"
#include "grid/view.hpp"

namespace bouss {

// Strides and inverse squared spacings of one level.
template <class S>
struct LevelStencil {
  std::ptrdiff_t s[3];
  S rd2[3];
  int n[3];
};

// The 7-point Laplacian of a level (uniform spacings; grid/difference_kernels.hpp).
template <class S, class VX>
BOUSS_HD inline S laplacian7(std::ptrdiff_t idx, VX x, const LevelStencil<S>& st) {
  const S c = x[idx];
  return horizontal_laplacian(idx, x, c, st.s[0], st.s[1], st.rd2[0], st.rd2[1]) +
         uniform_z_laplacian(idx, x, c, st.s[2], st.rd2[2]);
}

// How the update of a cell next to each face sees its neighbour across that face, so
// that a red-black sweep reads no ghost cells (and needs no ghost fill between colours):
//   wall (self = +1 gradient, -1 value): the ghost is self * x_cell + data, with data the
//     same for every cell of the face; a periodic axis of one cell is a wall with self = +1
//     and data 0 (the axis drops out, as it drops out of the Laplacian);
//   wrap: a periodic axis of even length > 1, read across the wrap inside the array (the
//     cell there has the other colour, so the read is race-free);
//   otherwise (a periodic axis of odd length > 1): the ghost, filled before each colour.
template <class S>
struct GhostSelf {
  signed char lo[3], hi[3];
  bool wrap[3];
  S data_lo[3], data_hi[3];
};

// Over-relaxed Gauss-Seidel update of one cell: towards the value that zeroes its
// residual, neighbours fixed. At a wall the update solves for the new value with the ghost
// moving with it (as the ghost filled after the sweep will), which keeps the smoother as
// strong at walls as inside.
template <class S, class VX, class VB>
BOUSS_HD inline S gauss_seidel_value(int i, int j, int k, std::ptrdiff_t idx, VX x, VB b, const LevelStencil<S>& st,
                                     const GhostSelf<S>& g, S omega) {
  const int p[3] = {i, j, k};
  const S old = x[idx];
  S off = 0, diag = 0;
  BOUSS_UNROLL
  for (int a = 0; a < 3; ++a) {
    const std::ptrdiff_t s = st.s[a];
    const int last = st.n[a] - 1;
    S lo, hi, d = 2;
    if (p[a] == 0 && g.lo[a]) {
      lo = g.data_lo[a];
      d -= g.lo[a];
    } else {
      lo = x[idx - (p[a] == 0 && g.wrap[a] ? -last * s : s)];
    }
    if (p[a] == last && g.hi[a]) {
      hi = g.data_hi[a];
      d -= g.hi[a];
    } else {
      hi = x[idx + (p[a] == last && g.wrap[a] ? -last * s : s)];
    }
    off += (lo + hi) * st.rd2[a];
    diag += d * st.rd2[a];
  }
  const S gs = (off - b[idx]) / diag;
  return old + omega * (gs - old);
}

// Average of the residuals b - lap(x) of the children of one coarse cell; `first` is the
// offset of the child with the smallest indices, c[a] = 1 where axis a was halved.
// Fuses the residual with the restriction: the residual array is never written.
template <class S, class VX, class VB>
BOUSS_HD inline S restrict_residual(VX x, VB b, std::ptrdiff_t first, const LevelStencil<S>& st, const int c[3]) {
  S sum = 0;
  for (int dk = 0; dk <= c[2]; ++dk)
    for (int dj = 0; dj <= c[1]; ++dj)
      for (int di = 0; di <= c[0]; ++di) {
        const std::ptrdiff_t idx = first + di * st.s[0] + dj * st.s[1] + dk * st.s[2];
        sum += b[idx] - laplacian7(idx, x, st);
      }
  return sum / S((1 + c[0]) * (1 + c[1]) * (1 + c[2]));
}

// Average of the children of one coarse cell (restriction of a right-hand side, for FMG).
template <class S, class VB>
BOUSS_HD inline S restrict_average(VB r, std::ptrdiff_t first, const std::ptrdiff_t s[3], const int c[3]) {
  S sum = 0;
  for (int dk = 0; dk <= c[2]; ++dk)
    for (int dj = 0; dj <= c[1]; ++dj)
      for (int di = 0; di <= c[0]; ++di) sum += r[first + di * s[0] + dj * s[1] + dk * s[2]];
  return sum / S((1 + c[0]) * (1 + c[1]) * (1 + c[2]));
}

// Trilinear interpolation of the coarse correction to fine cell (i,j,k): per halved axis
// weights 3/4 on the parent and 1/4 on the parent's neighbour on the child's side.
template <class S, class VE>
BOUSS_HD inline S prolong_trilinear(VE e, int i, int j, int k, const std::ptrdiff_t sc[3], const int c[3]) {
  const int f[3] = {i, j, k};
  int parent[3], side[3];
  S w1[3];
  BOUSS_UNROLL
  for (int a = 0; a < 3; ++a) {
    parent[a] = c[a] ? (f[a] >> 1) : f[a];
    side[a] = c[a] ? ((f[a] & 1) ? 1 : -1) : 0;
    w1[a] = c[a] ? S(0.25) : S(0);
  }
  const std::ptrdiff_t base = parent[0] * sc[0] + parent[1] * sc[1] + parent[2] * sc[2];
  S sum = 0;
  BOUSS_UNROLL
  for (int dk = 0; dk < 2; ++dk)
    BOUSS_UNROLL
    for (int dj = 0; dj < 2; ++dj)
      BOUSS_UNROLL
      for (int di = 0; di < 2; ++di) {
        const S w = (di ? w1[0] : 1 - w1[0]) * (dj ? w1[1] : 1 - w1[1]) * (dk ? w1[2] : 1 - w1[2]);
        sum += w * e[base + di * side[0] * sc[0] + dj * side[1] * sc[1] + dk * side[2] * sc[2]];
      }
  return sum;
}

}  // namespace bouss
