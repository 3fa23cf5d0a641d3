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

// Z: the z geometry, ZView<R> (tables per level) or UniformZ<R> (one spacing): the step's
// kernels are compiled for both (grid/stencil.hpp with_stencil).
template <class R, class Z = ZView<R>>
struct Stencil {
  std::ptrdiff_t s[3];
  R rd[2];
  R rd2[2];
  Z z;
};

// Divergence of the face velocities (u, v, w) over the cell at idx (level k).
template <class R, class Z>
BOUSS_HD inline R divergence_at_centre(std::ptrdiff_t idx, int k, CView<R> u, CView<R> v, CView<R> w,
                                       const Stencil<R, Z>& st) {
  return (u[idx + st.s[0]] - u[idx]) * st.rd[0] + (v[idx + st.s[1]] - v[idx]) * st.rd[1] +
         (w[idx + st.s[2]] - w[idx]) * st.z.rdz[k];
}

// d(phi)/dx_A on the face normal to A at idx (level k), from the centres on either side.
template <int A, class R, class Z>
BOUSS_HD inline R gradient_at_face(std::ptrdiff_t idx, int k, CView<R> phi, const Stencil<R, Z>& st) {
  return (phi[idx] - phi[idx - st.s[A]]) * (A == 2 ? st.z.rdzc[k] : st.rd[A]);
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

// 7-point Laplacian at level k of a field centred in z (T, p, u, v: ZFace false) or on the
// z faces (w: ZFace true).
template <bool ZFace, class R, class Z>
BOUSS_HD inline R laplacian(std::ptrdiff_t idx, int k, CView<R> f, const Stencil<R, Z>& st) {
  const R c = f[idx];
  const R horizontal = horizontal_laplacian(idx, f, c, st.s[0], st.s[1], st.rd2[0], st.rd2[1]);
  if constexpr (Z::uniform) {
    return horizontal + uniform_z_laplacian(idx, f, c, st.s[2], st.z.rd2);
  } else {
    const R up = ZFace ? st.z.rdz[k] : st.z.rdzc[k + 1], down = ZFace ? st.z.rdz[k - 1] : st.z.rdzc[k];
    const R across = ZFace ? st.z.rdzc[k] : st.z.rdz[k];
    return horizontal + stretched_z_laplacian(idx, f, c, st.s[2], up, down, across);
  }
}

}  // namespace bouss
