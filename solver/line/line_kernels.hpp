// Pointwise kernels of the vertical-line solvers (solver/multigrid/line_multigrid.hpp): the cell-centred
// Laplacian with a variable z spacing (the z tables, grid/z_tables.hpp), and the tridiagonal
// system of one vertical line of it, whose horizontal neighbours are held fixed. Walls fold
// into the line's rows through GhostSelf (solver/ghost_self.hpp: the one wall rule), so a
// zebra sweep reads no ghosts except along a periodic horizontal axis of odd length.
//
// The operator, on a level with horizontal spacings hx, hy (coarsened) and the fine grid's z:
//   (L x)_k = (x_{i+1} - 2 x + x_{i-1}) / hx^2 + (same in y)
//           + [ (x_{k+1} - x_k) / dzc_{k+1} - (x_k - x_{k-1}) / dzc_k ] / dz_k  - shift x
// with dz_k the cell's thickness and dzc_k the distance between the centres across face k:
// the divergence of the projection's gradient (grid/difference_kernels.hpp) exactly, for
// shift = 0 (the pressure equation). A shift > 0 is the model problem of papers 000/001,
// -omega^2 (lap_h u + lambda^2 u_zz) + u = f divided by -omega^2 (shift = 1/omega^2, z
// scaled by 1/lambda; tools/elliptic_bench.cpp).
#pragma once

#include <cstddef>

#include "grid/config.hpp"
#include "grid/difference_kernels.hpp"
#include "grid/view.hpp"
#include "grid/z_tables.hpp"
#include "solver/multigrid/multigrid_kernels.hpp"
#include "solver/line/tridiagonal_kernels.hpp"

namespace bouss {

template <class S>
struct LineStencil {
  std::ptrdiff_t s[3];
  S rx2, ry2;  // 1/hx^2, 1/hy^2
  S shift;     // subtracted times x (0 for the pressure equation)
  int n[3];
  ZView<S> z;
};

template <class S, class VX>
BOUSS_HD inline S line_laplacian(std::ptrdiff_t idx, int k, VX x, const LineStencil<S>& st) {
  const S c = x[idx];
  return horizontal_laplacian(idx, x, c, st.s[0], st.s[1], st.rx2, st.ry2) +
         stretched_z_laplacian(idx, x, c, st.s[2], st.z.rdzc[k + 1], st.z.rdzc[k], st.z.rdz[k]) - st.shift * c;
}

// Average of the residuals b - L x of the children of one coarse cell, along the halved
// horizontal axes (c[0], c[1]; z is never halved): the residual fused with the restriction.
template <class S, class VX, class VB>
BOUSS_HD inline S restrict_line_residual(VX x, VB b, std::ptrdiff_t first, int k, const LineStencil<S>& st,
                                         const int c[2]) {
  S sum = 0;
  for (int dj = 0; dj <= c[1]; ++dj)
    for (int di = 0; di <= c[0]; ++di) {
      const std::ptrdiff_t idx = first + di * st.s[0] + dj * st.s[1];
      sum += b[idx] - line_laplacian(idx, k, x, st);
    }
  return sum / S((1 + c[0]) * (1 + c[1]));
}

// Row k of a vertical line of nz cells: -d2/dz2 (the divergence of the gradient across the z
// faces, over the cell's thickness) plus `horizontal_diag` on the diagonal, the walls folded
// by their GhostSelf factors lo and hi (solver/ghost_self.hpp). The line solvers' rows, and
// with a horizontal Fourier mode's eigenvalue on the diagonal the Fourier solver's.
template <class S, class Z>
BOUSS_HD inline TriRow<S> line_row(const Z& z, int k, int nz, S horizontal_diag, signed char lo, signed char hi) {
  const S down = z.rdzc[k] * z.rdz[k], up = z.rdzc[k + 1] * z.rdz[k];
  S diag = horizontal_diag + down + up, lower = -down, upper = -up;
  if (k == 0) {
    diag -= lo * down;
    lower = 0;
  }
  if (k == nz - 1) {
    diag -= hi * up;
    upper = 0;
  }
  return {lower, diag, upper};
}

// The vertical line through column (i, j) as a tridiagonal system in x_k, neighbours in x and
// y fixed: rows(k) are L's coefficients (negated, so the diagonal is positive), rhs[idx] is
// -(b - the fixed neighbours' part), both with the walls folded in.
template <class S, class VX, class VB>
struct LineSystem {
  VX x;
  VB b;
  LineStencil<S> st;
  GhostSelf<S> g;
  int i, j;
  S horizontal_diag;  // 2/hx^2 + 2/hy^2 + shift less what the walls at this column fold away

  BOUSS_HD LineSystem(VX x_, VB b_, const LineStencil<S>& st_, const GhostSelf<S>& g_, int i_, int j_)
      : x(x_), b(b_), st(st_), g(g_), i(i_), j(j_) {
    const int p[2] = {i, j};
    const S r2[2] = {st.rx2, st.ry2};
    horizontal_diag = st.shift;
    BOUSS_UNROLL
    for (int a = 0; a < 2; ++a) {
      horizontal_diag += 2 * r2[a];
      if (p[a] == 0) horizontal_diag -= g.lo[a] * r2[a];
      if (p[a] == st.n[a] - 1) horizontal_diag -= g.hi[a] * r2[a];
    }
  }
  // The fixed horizontal neighbours' part of row k at idx: their values, or at a wall its data.
  BOUSS_HD S neighbours(std::ptrdiff_t idx) const {
    const int p[2] = {i, j};
    const S r2[2] = {st.rx2, st.ry2};
    S sum = 0;
    BOUSS_UNROLL
    for (int a = 0; a < 2; ++a) {
      const std::ptrdiff_t s = st.s[a];
      const int last = st.n[a] - 1;
      if (p[a] == 0 && g.lo[a]) sum += g.data_lo[a] * r2[a];
      else sum += x[idx - (p[a] == 0 && g.wrap[a] ? -last * s : s)] * r2[a];
      if (p[a] == last && g.hi[a]) sum += g.data_hi[a] * r2[a];
      else sum += x[idx + (p[a] == last && g.wrap[a] ? -last * s : s)] * r2[a];
    }
    return sum;
  }
  // Row k: lower x_{k-1} + diag x_k + upper x_{k+1}, with the z walls folded.
  BOUSS_HD TriRow<S> operator()(int k) const { return line_row(st.z, k, st.n[2], horizontal_diag, g.lo[2], g.hi[2]); }
  // -(L x)_k at idx from the line's values below, at and above row k (those outside the line
  // are ignored) and x's horizontal neighbours, the walls folded in; with the GhostSelf of
  // the homogeneous problem (data 0) it is the operator the line-preconditioned CG iterates on.
  BOUSS_HD S apply(int k, std::ptrdiff_t idx, S below, S centre, S above) const {
    const TriRow<S> row = (*this)(k);
    S v = row.diag * centre - neighbours(idx);
    if (k > 0) v += row.lower * below;
    if (k < st.n[2] - 1) v += row.upper * above;
    return v;
  }
  // The right-hand side of the row at idx, with the z walls' data where it is the first row
  // (first) or the last (last; a one-row line is both).
  BOUSS_HD S rhs(std::ptrdiff_t idx, bool first, bool last) const {
    S r = neighbours(idx) - b[idx];
    if (first) r += g.data_lo[2] * st.z.rdzc[0] * st.z.rdz[0];
    if (last) r += g.data_hi[2] * st.z.rdzc[st.n[2]] * st.z.rdz[st.n[2] - 1];
    return r;
  }
};

// rhs as an array for thomas_line (it reads r[idx] at idx = base + k stride): the ends found
// by comparing offsets, not by dividing one per row.
template <class S, class System>
struct LineRhs {
  const System* sys;
  std::ptrdiff_t first, last;  // the offsets of rows 0 and n - 1
  BOUSS_HD S operator[](std::ptrdiff_t idx) const { return sys->rhs(idx, idx == first, idx == last); }
};

}  // namespace bouss
