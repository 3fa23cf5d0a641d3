// The C-grid's discrete calculus, pointwise (paper 004, "Numerical method"): the stencil a
// grid gives its operators (strides, inverse spacings, z tables), and the divergence,
// gradient and 7-point Laplacian that the step's diffusion and projection (physics/) and the
// pressure solvers (solver/) share. The conventions are physics/operators_kernels.hpp's:
// each function takes the flat offset idx of its point and its level k and returns one
// value in the fields' precision R; launch sites own the loops.
#pragma once

#include <cmath>

#include "grid/config.hpp"
#include "grid/view.hpp"
#include "grid/z_tables.hpp"

namespace bouss {

template <class R>
using CView = View<const R>;

// Z: the z geometry, ZView<R> (tables per level) or UniformZ<R> (one spacing); XY: the
// horizontal one, UniformXY (rd, rd2: one spacing per axis, nothing loaded) or TableXY<R>
// (x's and y's tables, for a grid stretched along x or y). The step's kernels are compiled for
// each kind a grid can have (grid/stencil.hpp with_stencil); on uniform horizontal axes every
// operator computes exactly what it did before x and y could stretch.
struct UniformXY {
  static constexpr bool uniform = true;
};
template <class R>
struct TableXY {
  static constexpr bool uniform = false;
  ZView<R> x, y;  // each axis's tables (grid/z_tables.hpp), read at i and j
};

template <class R, class Z = ZView<R>, class XY = UniformXY>
struct Stencil {
  std::ptrdiff_t s[3];
  R rd[2];
  R rd2[2];
  Z z;
  XY xy;
};

// Along horizontal axis B of a stencil, at index n along it: the inverse width of cell n, the
// inverse distance across face n (between the centres of cells n - 1 and n), and a cell value
// carried linearly to face n from cells n - 1 (lo) and n (hi). Uniform axes: the one spacing.
template <int B, class R, class Z, class XY>
BOUSS_HD inline R rd_cell(const Stencil<R, Z, XY>& st, int n) {
  if constexpr (XY::uniform) {
    return st.rd[B];
  } else {
    return (B == 0 ? st.xy.x : st.xy.y).rdz[n];
  }
}
template <int B, class R, class Z, class XY>
BOUSS_HD inline R rd_across(const Stencil<R, Z, XY>& st, int n) {
  if constexpr (XY::uniform) {
    return st.rd[B];
  } else {
    return (B == 0 ? st.xy.x : st.xy.y).rdzc[n];
  }
}
template <int B, class R, class Z, class XY>
BOUSS_HD inline R to_face(const Stencil<R, Z, XY>& st, int n, R lo, R hi) {
  if constexpr (XY::uniform) {
    return R(0.5) * (lo + hi);
  } else {
    return (B == 0 ? st.xy.x : st.xy.y).to_face(n, lo, hi);
  }
}

// Divergence of the face velocities (u, v, w) over the cell (i, j, k) at idx.
template <class R, class Z, class XY>
BOUSS_HD inline R divergence_at_centre(std::ptrdiff_t idx, int i, int j, int k, CView<R> u, CView<R> v, CView<R> w,
                                       const Stencil<R, Z, XY>& st) {
  return (u[idx + st.s[0]] - u[idx]) * rd_cell<0>(st, i) + (v[idx + st.s[1]] - v[idx]) * rd_cell<1>(st, j) +
         (w[idx + st.s[2]] - w[idx]) * st.z.rdz[k];
}

// d(phi)/dx_A on the face normal to A at idx (indices i, j, k), from the centres on either side.
template <int A, class R, class Z, class XY>
BOUSS_HD inline R gradient_at_face(std::ptrdiff_t idx, int i, int j, int k, CView<R> phi, const Stencil<R, Z, XY>& st) {
  const R rd = A == 2 ? st.z.rdzc[k] : A == 0 ? rd_across<0>(st, i) : rd_across<1>(st, j);
  return (phi[idx] - phi[idx - st.s[A]]) * rd;
}

// The 7-point Laplacian's three parts, written once for the step (laplacian below) and the
// pressure solvers' level operators (solver/multigrid/multigrid_kernels.hpp laplacian7,
// solver/line/line_kernels.hpp line_laplacian), for any view f of the value c = f[idx]:
// along x and y with strides sx, sy and inverse squared spacings rx2, ry2;
template <class R, class V>
BOUSS_HD inline R horizontal_laplacian(std::ptrdiff_t idx, V f, R c, std::ptrdiff_t sx, std::ptrdiff_t sy, R rx2, R ry2) {
  return (f[idx + sx] - 2 * c + f[idx - sx]) * rx2 + (f[idx + sy] - 2 * c + f[idx - sy]) * ry2;
}
// along a uniform z with inverse squared spacing rz2;
template <class R, class V>
BOUSS_HD inline R uniform_z_laplacian(std::ptrdiff_t idx, V f, R c, std::ptrdiff_t sz, R rz2) {
  return (f[idx + sz] - 2 * c + f[idx - sz]) * rz2;
}
// along a stretched z: the difference of the fluxes through the upper and lower faces (the
// inverse distances `up`, `down` across them) over the control volume's thickness (`across`, inverse).
template <class R, class V>
BOUSS_HD inline R stretched_z_laplacian(std::ptrdiff_t idx, V f, R c, std::ptrdiff_t sz, R up, R down, R across) {
  return ((f[idx + sz] - c) * up - (c - f[idx - sz]) * down) * across;
}

// The flux form of the second difference along stretched axis B at index n for a field on
// its faces along B (OnFaces: u along x, v along y) or at its centres: the difference of the
// fluxes through the control volume's two ends over its width.
template <int B, bool OnFaces, class R, class V, class Z, class XY>
BOUSS_HD inline R stretched_axis_laplacian(std::ptrdiff_t idx, V f, R c, int n, const Stencil<R, Z, XY>& st) {
  const R up = OnFaces ? rd_cell<B>(st, n) : rd_across<B>(st, n + 1);
  const R down = OnFaces ? rd_cell<B>(st, n - 1) : rd_across<B>(st, n);
  const R across = OnFaces ? rd_across<B>(st, n) : rd_cell<B>(st, n);
  return ((f[idx + st.s[B]] - c) * up - (c - f[idx - st.s[B]]) * down) * across;
}

// 7-point Laplacian at (i, j, k) of a field on the faces normal to axis FaceAxis (0: u,
// 1: v, 2: w) or at the cell centres (FaceAxis -1: T, p).
template <int FaceAxis, class R, class Z, class XY>
BOUSS_HD inline R laplacian(std::ptrdiff_t idx, int i, int j, int k, CView<R> f, const Stencil<R, Z, XY>& st) {
  constexpr bool ZFace = FaceAxis == 2;
  const R c = f[idx];
  R horizontal;
  if constexpr (XY::uniform) {
    horizontal = horizontal_laplacian(idx, f, c, st.s[0], st.s[1], st.rd2[0], st.rd2[1]);
  } else {
    horizontal = stretched_axis_laplacian<0, FaceAxis == 0>(idx, f, c, i, st) +
                 stretched_axis_laplacian<1, FaceAxis == 1>(idx, f, c, j, st);
  }
  if constexpr (Z::uniform) {
    return horizontal + uniform_z_laplacian(idx, f, c, st.s[2], st.z.rd2);
  } else {
    const R up = ZFace ? st.z.rdz[k] : st.z.rdzc[k + 1], down = ZFace ? st.z.rdz[k - 1] : st.z.rdzc[k];
    const R across = ZFace ? st.z.rdzc[k] : st.z.rdz[k];
    return horizontal + stretched_z_laplacian(idx, f, c, st.s[2], up, down, across);
  }
}

}  // namespace bouss
