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

// 7-point Laplacian at level k of a field centred in z (T, p, u, v: ZFace false) or on the
// z faces (w: ZFace true): along z the difference of the two fluxes over the control
// volume's thickness.
template <bool ZFace, class R, class Z>
BOUSS_HD inline R laplacian(std::ptrdiff_t idx, int k, CView<R> f, const Stencil<R, Z>& st) {
  const R c = f[idx];
  const std::ptrdiff_t sz = st.s[2];
  const R horizontal = (f[idx + st.s[0]] - 2 * c + f[idx - st.s[0]]) * st.rd2[0] +
                       (f[idx + st.s[1]] - 2 * c + f[idx - st.s[1]]) * st.rd2[1];
  if constexpr (Z::uniform) {
    return horizontal + (f[idx + sz] - 2 * c + f[idx - sz]) * st.z.rd2;
  } else {
    const R up = ZFace ? st.z.rdz[k] : st.z.rdzc[k + 1], down = ZFace ? st.z.rdz[k - 1] : st.z.rdzc[k];
    const R across = ZFace ? st.z.rdzc[k] : st.z.rdz[k];
    return horizontal + ((f[idx + sz] - c) * up - (c - f[idx - sz]) * down) * across;
  }
}

}  // namespace bouss
