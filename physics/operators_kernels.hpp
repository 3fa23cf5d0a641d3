// Pointwise finite-volume operators on the staggered C-grid (paper 004, "Numerical method").
// Every function takes the flat offset idx of its point (the same for every field, by
// congruent padding) and returns one value; launch sites own the loops. Names carry the
// location of the result: *_at_centre for T/p points, *_at_face<A> for the faces normal
// to axis A (A = 0: u points, 1: v points, 2: w points).
//
//   stride s[a]: offset to the next point along axis a (1, sy, sz)
//   rd[a] = 1/h[a],  rd2[a] = 1/h[a]^2 along uniform x and y; along stretched ones their
//      tables (the same form as z's), read at the point's i and j (grid/difference_kernels.hpp
//      rd_cell, rd_across, to_face): a stretched x or y is treated as z is below
//   z: the grid's z tables (grid/z_tables.hpp), read at the point's level k, so the same
//      operator serves a uniform and a stretched z. Along z a cell-centred value spans
//      dz(k) and a z-face value dz_centres(k); a value carried to a face is interpolated
//      linearly (z.to_face), to a centre from its two faces by their mean (the centre lies
//      half-way). Fluxes through faces difference over the control volume's thickness, so
//      the form stays conservative on a stretched grid.
//
// Each is a template on the fields' precision R (float or double): its arithmetic stays in
// R (literals as R(0.5), the std:: overloads of fmax and fabs), so a single-precision run
// computes in single precision.
#pragma once

#include <cmath>

#include "grid/box.hpp"
#include "grid/config.hpp"
#include "grid/difference_kernels.hpp"
#include "grid/stencil.hpp"

namespace bouss {

// |u|/dx + |v|/dy + |w|/dz over the cell at idx, each the larger of its two faces: the
// advective rate that the CFL number bounds (dt <= cfl / max rate).
template <class R, class Z, class XY>
BOUSS_HD inline R advective_rate_at_centre(std::ptrdiff_t idx, int i, int j, int k, CView<R> u, CView<R> v, CView<R> w,
                                           const Stencil<R, Z, XY>& st) {
  const R au = std::fmax(std::fabs(u[idx]), std::fabs(u[idx + st.s[0]]));
  const R av = std::fmax(std::fabs(v[idx]), std::fabs(v[idx + st.s[1]]));
  const R aw = std::fmax(std::fabs(w[idx]), std::fabs(w[idx + st.s[2]]));
  return au * rd_cell<0>(st, i) + av * rd_cell<1>(st, j) + aw * st.z.rdz[k];
}

// The advective rate with the cell's temperature folded in: t - t is 0 for a finite t and
// NaN for NaN or Inf, and fmax would drop a NaN rate, so the sum carries either to a
// NaN-propagating max. One pass checks the whole state (u, v, w, T) for non-finite values.
template <class R, class Z, class XY>
BOUSS_HD inline R state_rate_at_centre(std::ptrdiff_t idx, int i, int j, int k, CView<R> u, CView<R> v, CView<R> w,
                                       CView<R> T, const Stencil<R, Z, XY>& st) {
  const R t = T[idx];
  const R nonfinite = (u[idx] - u[idx]) + (u[idx + st.s[0]] - u[idx + st.s[0]]) + (v[idx] - v[idx]) +
                      (v[idx + st.s[1]] - v[idx + st.s[1]]) + (w[idx] - w[idx]) +
                      (w[idx + st.s[2]] - w[idx + st.s[2]]) + (t - t);
  return advective_rate_at_centre(idx, i, j, k, u, v, w, st) + nonfinite;
}

// Flux-form advection div(u q) of a cell-centred scalar q, with face values of q
// interpolated linearly (the centred average on a uniform grid): discretely conservative
// and second order.
template <class R, class Z, class XY>
BOUSS_HD inline R advection_at_centre(std::ptrdiff_t idx, int i, int j, int k, CView<R> q, CView<R> u, CView<R> v,
                                      CView<R> w, const Stencil<R, Z, XY>& st) {
  const R qc = q[idx];
  const CView<R> vel[2] = {u, v};
  R sum = 0;
  if constexpr (XY::uniform) {
BOUSS_UNROLL
    for (int b = 0; b < 2; ++b) {
      const std::ptrdiff_t s = st.s[b];
      const R flux_hi = vel[b][idx + s] * (qc + q[idx + s]);
      const R flux_lo = vel[b][idx] * (q[idx - s] + qc);
      sum += R(0.5) * (flux_hi - flux_lo) * st.rd[b];
    }
  } else {
    const std::ptrdiff_t sx = st.s[0], sy = st.s[1];
    sum = (u[idx + sx] * to_face<0>(st, i + 1, qc, q[idx + sx]) - u[idx] * to_face<0>(st, i, q[idx - sx], qc)) *
              rd_cell<0>(st, i) +
          (v[idx + sy] * to_face<1>(st, j + 1, qc, q[idx + sy]) - v[idx] * to_face<1>(st, j, q[idx - sy], qc)) *
              rd_cell<1>(st, j);
  }
  const std::ptrdiff_t sz = st.s[2];
  const R flux_hi = w[idx + sz] * st.z.to_face(k + 1, qc, q[idx + sz]);
  const R flux_lo = w[idx] * st.z.to_face(k, q[idx - sz], qc);
  return sum + (flux_hi - flux_lo) * st.z.rdz[k];
}

// Flux-form advection div(u q_A) of the velocity component q_A = vel[A] on its own faces
// (level k). Along A the flux sits at the cell centres (both factors averaged from faces);
// across, at the cell edges, with the transporting component carried to the edge along A
// and q_A across.
template <int A, class R, class Z, class XY>
BOUSS_HD inline R momentum_advection_at_face(std::ptrdiff_t idx, int i, int j, int k, CView<R> u, CView<R> v, CView<R> w,
                                             const Stencil<R, Z, XY>& st) {
  const CView<R> vel[3] = {u, v, w};
  const CView<R> q = vel[A];
  const std::ptrdiff_t sa = st.s[A];
  const R qc = q[idx];
  const int at[3] = {i, j, k};  // the point's index along each axis
  R sum = 0;
BOUSS_UNROLL
  for (int b = 0; b < 3; ++b) {
    const std::ptrdiff_t s = st.s[b];
    R flux_hi, flux_lo, rd;
    if (b == A) {
      // Face to centre: the centre lies half-way between its faces on any grid.
      const R hi = R(0.5) * (qc + q[idx + s]);
      const R lo = R(0.5) * (q[idx - s] + qc);
      flux_hi = hi * hi;
      flux_lo = lo * lo;
      rd = A == 2 ? st.z.rdzc[k] : A == 0 ? rd_across<0>(st, i) : rd_across<1>(st, j);
    } else if (b == 2) {  // q_A = u or v through the z faces k + 1 and k of its cell
      // The carrier w to q_A's face along A, from the cells either side.
      const R carrier_hi = A == 0 ? to_face<0>(st, i, vel[b][idx + s - sa], vel[b][idx + s])
                                  : to_face<1>(st, j, vel[b][idx + s - sa], vel[b][idx + s]);
      const R carrier_lo = A == 0 ? to_face<0>(st, i, vel[b][idx - sa], vel[b][idx])
                                  : to_face<1>(st, j, vel[b][idx - sa], vel[b][idx]);
      flux_hi = carrier_hi * st.z.to_face(k + 1, qc, q[idx + s]);
      flux_lo = carrier_lo * st.z.to_face(k, q[idx - s], qc);
      rd = st.z.rdz[k];
    } else {
      // The carrier u or v on the edge: along A from the cells either side of q_A's face
      // (along z from the cells k - 1 and k to face k); q_A across b to the edge, from its
      // own points either side (b's faces n_b and n_b + 1 of its cell n_b).
      const int nb = at[b];
      R carrier_hi, carrier_lo;
      if (A == 2) {
        carrier_hi = st.z.to_face(k, vel[b][idx + s - sa], vel[b][idx + s]);
        carrier_lo = st.z.to_face(k, vel[b][idx - sa], vel[b][idx]);
      } else if (A == 0) {
        carrier_hi = to_face<0>(st, i, vel[b][idx + s - sa], vel[b][idx + s]);
        carrier_lo = to_face<0>(st, i, vel[b][idx - sa], vel[b][idx]);
      } else {
        carrier_hi = to_face<1>(st, j, vel[b][idx + s - sa], vel[b][idx + s]);
        carrier_lo = to_face<1>(st, j, vel[b][idx - sa], vel[b][idx]);
      }
      if constexpr (XY::uniform) {
        flux_hi = carrier_hi * R(0.5) * (qc + q[idx + s]);
        flux_lo = carrier_lo * R(0.5) * (q[idx - s] + qc);
        rd = st.rd[b];
      } else {
        flux_hi = carrier_hi * (b == 0 ? to_face<0>(st, nb + 1, qc, q[idx + s]) : to_face<1>(st, nb + 1, qc, q[idx + s]));
        flux_lo = carrier_lo * (b == 0 ? to_face<0>(st, nb, q[idx - s], qc) : to_face<1>(st, nb, q[idx - s], qc));
        rd = b == 0 ? rd_cell<0>(st, nb) : rd_cell<1>(st, nb);
      }
    }
    sum += (flux_hi - flux_lo) * rd;
  }
  return sum;
}

// Buoyancy b_T theta on the z-face at idx (level k), theta = T - T_ref(z) (physics/flow.hpp)
// interpolated from the cells below and above.
template <class R, class Z, class XY>
BOUSS_HD inline R buoyancy_at_zface(std::ptrdiff_t idx, int k, CView<R> theta, R b_T, const Stencil<R, Z, XY>& st) {
  return b_T * st.z.to_face(k, theta[idx - st.s[2]], theta[idx]);
}

// Advection of the reference profile T_ref(z), linear in z, at the cell centre idx: w dT_ref/dz
// with w the mean of the cell's two z-faces. It is the flux form's value for T_ref less
// T_ref div(u), which the projection makes zero to its tolerance.
template <class R, class Z, class XY>
BOUSS_HD inline R reference_advection_at_centre(std::ptrdiff_t idx, CView<R> w, R gradient, const Stencil<R, Z, XY>& st) {
  return R(0.5) * (w[idx] + w[idx + st.s[2]]) * gradient;
}

// The advective heat flux w T through the z-face at idx (level k), T interpolated to the
// face from the cells below and above as in the advective flux (advection_at_centre): the
// flux whose volume mean gives the volume Nusselt number and whose horizontal mean is the
// wT profile.
template <class R, class Z, class XY>
BOUSS_HD inline R advective_heat_flux_at_zface(std::ptrdiff_t idx, int k, CView<R> w, CView<R> T,
                                               const Stencil<R, Z, XY>& st) {
  return w[idx] * st.z.to_face(k, T[idx - st.s[2]], T[idx]);
}

// u_i lap(u_i) at the face idx of a velocity component q, the Laplacian with the ghosts the
// step fills: summed over the component's unknown faces times nu dV it is the viscous term's
// work on the kinetic energy, -epsilon (by summation by parts nu times the sum of the squared
// face-to-face differences over h^2, walls included: never positive).
// FaceAxis: q's (0: u, 1: v, 2: w; laplacian<FaceAxis>); the caller weights each face by its
// control volume.
template <int FaceAxis, class R, class Z, class XY>
BOUSS_HD inline R velocity_times_laplacian(std::ptrdiff_t idx, int i, int j, int k, CView<R> q,
                                           const Stencil<R, Z, XY>& st) {
  return q[idx] * laplacian<FaceAxis>(idx, i, j, k, q, st);
}

// The discrete energy budget's viscous work at point (i, j, k) of the points 0..n of every
// axis: each of its u, v and w faces that is an unknown of the step (on_u, on_v, on_w: the
// simulation's unknowns()) adds u_i lap u_i times its control volume: its thickness (dz for u
// and v, dzc, the centres' distance, for w) times its horizontal extent over the mean cell's
// (`areas`: 1 on uniform x and y). Summed over the points and times -nu dx dy it is the
// viscous dissipation (the lock exchange's energy budget, the Nusselt number of the kinetic
// dissipation).
template <class R, class St>
struct ViscousWork {
  IndexRange on_u, on_v, on_w;
  CView<R> u, v, w;
  St st;
  ControlAreas areas;
  BOUSS_HD double operator()(int i, int j, int k, std::ptrdiff_t idx, double dz, double dzc) const {
    double work = 0;
    if (on_u.contains(i, j, k)) work += double(velocity_times_laplacian<0>(idx, i, j, k, u, st)) * dz * areas.u_face(i, j);
    if (on_v.contains(i, j, k)) work += double(velocity_times_laplacian<1>(idx, i, j, k, v, st)) * dz * areas.v_face(i, j);
    if (on_w.contains(i, j, k)) work += double(velocity_times_laplacian<2>(idx, i, j, k, w, st)) * dzc * areas.cell(i, j);
    return work;
  }
};

}  // namespace bouss
