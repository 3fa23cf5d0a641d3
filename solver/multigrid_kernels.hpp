// Pointwise multigrid kernels (cell-centred, 7-point Laplacian). See solver/multigrid.hpp.
#pragma once

#include "grid/config.hpp"
#include "grid/view.hpp"
#include "physics/operators_kernels.hpp"

namespace bouss {

// How each face's ghost depends on the cell next to it: ghost = self * x_cell + data.
// self = +1 for a gradient condition, -1 for a value condition, 0 when the ghost is
// another cell's value (periodic).
struct GhostSelf {
  signed char lo[3], hi[3];
};

// Gauss-Seidel update of one cell: the value that zeroes its residual, neighbours fixed.
// The ghosts were filled from the cell's old value; at a wall the update solves for the
// new value with the ghost moving with it (exactly as the filled ghost will after the
// sweep), which keeps the smoother as strong at walls as inside.
template <class S, class VX, class VB>
BOUSS_HD inline S gauss_seidel_value(int i, int j, int k, std::ptrdiff_t idx, VX x, VB b, const std::ptrdiff_t s[3],
                                     const S rd2[3], const int n[3], GhostSelf self, S omega) {
  const int p[3] = {i, j, k};
  const S old = x[idx];
  S off = 0, diag = 0;
  BOUSS_UNROLL
  for (int a = 0; a < 3; ++a) {
    off += (x[idx + s[a]] + x[idx - s[a]]) * rd2[a];
    S d = 2;
    if (p[a] == 0) d -= self.lo[a];
    if (p[a] == n[a] - 1) d -= self.hi[a];
    diag += d * rd2[a];
    // Remove the lagged old value the ghost carries; d above carries the new one.
    off -= ((p[a] == 0 ? S(self.lo[a]) : S(0)) + (p[a] == n[a] - 1 ? S(self.hi[a]) : S(0))) * old * rd2[a];
  }
  const S gs = (off - b[idx]) / diag;
  return old + omega * (gs - old);
}

// Average of the children of coarse cell (I,J,K) in the fine array r (offset fine_idx of
// the first child); c[a] = 1 where axis a was halved.
BOUSS_HD inline Real restrict_average(CView r, std::ptrdiff_t fine_idx, const std::ptrdiff_t s[3],
                                      const int c[3]) {
  Real sum = 0;
  for (int dk = 0; dk <= c[2]; ++dk)
    for (int dj = 0; dj <= c[1]; ++dj)
      for (int di = 0; di <= c[0]; ++di) sum += r[fine_idx + di * s[0] + dj * s[1] + dk * s[2]];
  return sum / Real((1 + c[0]) * (1 + c[1]) * (1 + c[2]));
}

// Trilinear interpolation of the coarse correction to fine cell (i,j,k): per halved axis
// weights 3/4 on the parent and 1/4 on the parent's neighbour on the child's side.
BOUSS_HD inline Real prolong_trilinear(CView e, int i, int j, int k, const std::ptrdiff_t sc[3],
                                       const int c[3]) {
  const int f[3] = {i, j, k};
  int parent[3], side[3];
  Real w1[3];
  BOUSS_UNROLL
  for (int a = 0; a < 3; ++a) {
    parent[a] = c[a] ? (f[a] >> 1) : f[a];
    side[a] = c[a] ? ((f[a] & 1) ? 1 : -1) : 0;
    w1[a] = c[a] ? Real(0.25) : Real(0);
  }
  const std::ptrdiff_t base = parent[0] * sc[0] + parent[1] * sc[1] + parent[2] * sc[2];
  Real sum = 0;
  BOUSS_UNROLL
  for (int dk = 0; dk < 2; ++dk)
    BOUSS_UNROLL
    for (int dj = 0; dj < 2; ++dj)
      BOUSS_UNROLL
      for (int di = 0; di < 2; ++di) {
        const Real w = (di ? w1[0] : 1 - w1[0]) * (dj ? w1[1] : 1 - w1[1]) * (dk ? w1[2] : 1 - w1[2]);
        sum += w * e[base + di * side[0] * sc[0] + dj * side[1] * sc[1] + dk * side[2] * sc[2]];
      }
  return sum;
}

}  // namespace bouss
