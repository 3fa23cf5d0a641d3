// The strides, inverse spacings and z geometry the pointwise operators take, for one grid.
#pragma once

#include "grid/backend.hpp"
#include "grid/grid.hpp"
#include "grid/difference_kernels.hpp"

namespace bouss {

// In the fields' precision R: the inverse spacings computed in double, rounded once; the z
// tables on `backend`, where the kernels run.
template <class R>
inline Stencil<R> make_stencil(const Grid& g, const Backend& backend) {
  Stencil<R> st{};
  for (int a = 0; a < 3; ++a) st.s[a] = g.layout.stride(a);
  for (int a = 0; a < 2; ++a) {
    st.rd[a] = R(1 / g.h[a]);
    st.rd2[a] = R(1 / (g.h[a] * g.h[a]));
  }
  st.z = g.z_view<R>(backend);
  return st;
}

// The same for a uniform z: one spacing, nothing loaded per level (the coordinates still
// come from the tables). Only for a grid that is not stretched.
template <class R>
inline Stencil<R, UniformZ<R>> make_uniform_stencil(const Grid& g, const Backend& backend) {
  const Stencil<R> t = make_stencil<R>(g, backend);
  Stencil<R, UniformZ<R>> st{};
  for (int a = 0; a < 3; ++a) st.s[a] = t.s[a];
  for (int a = 0; a < 2; ++a) {
    st.rd[a] = t.rd[a];
    st.rd2[a] = t.rd2[a];
  }
  const R rh = R(1 / g.h[2]);
  st.z = UniformZ<R>{R(1 / (g.h[2] * g.h[2])), {rh}, {rh}, {R(0.5)}, t.z.zc, t.z.zf};
  return st;
}

// The same with x's and y's tables too: a grid stretched along x or y (its z tables as they
// are, uniform or not).
template <class R>
inline Stencil<R, ZView<R>, TableXY<R>> make_general_stencil(const Grid& g, const Backend& backend) {
  const Stencil<R> t = make_stencil<R>(g, backend);
  Stencil<R, ZView<R>, TableXY<R>> st{};
  for (int a = 0; a < 3; ++a) st.s[a] = t.s[a];
  for (int a = 0; a < 2; ++a) {
    st.rd[a] = t.rd[a];
    st.rd2[a] = t.rd2[a];
  }
  st.z = t.z;
  st.xy = TableXY<R>{g.axis_view<R>(backend, 0), g.axis_view<R>(backend, 1)};
  return st;
}

// The horizontal area of cell (i, j) over the mean cell's, dx_i dy_j / (hx hy), for the sums
// that weight cells by their volume (means, integrals, profiles): exactly 1 on uniform x and
// y, so that those sums are bitwise the unweighted ones there. i and j index this block.
struct AreaWeights {
  const double* xf = nullptr;  // x's face positions (the axis tables' zf), null: uniform x
  const double* yf = nullptr;
  double rhx = 1, rhy = 1;     // 1/hx, 1/hy: the mean widths
  // Each axis's share: the cell's width over the mean one.
  BOUSS_HD double x_width(int i) const { return xf ? (xf[i + 1] - xf[i]) * rhx : 1.0; }
  BOUSS_HD double y_width(int j) const { return yf ? (yf[j + 1] - yf[j]) * rhy : 1.0; }
  BOUSS_HD double operator()(int i, int j) const { return !xf && !yf ? 1.0 : x_width(i) * y_width(j); }
};
inline AreaWeights area_weights(const Grid& g, const Backend& backend) {
  AreaWeights w;
  if (g.stretched(0)) w.xf = g.axis_view<double>(backend, 0).zf.p;
  if (g.stretched(1)) w.yf = g.axis_view<double>(backend, 1).zf.p;
  w.rhx = 1 / g.h[0];
  w.rhy = 1 / g.h[1];
  return w;
}

// The horizontal extents of the control volumes of the faces and the cells over the mean
// cell's, exactly 1 on uniform axes: a u face's dxc_i dy_j (dxc_i the distance between the
// centres either side of x face i), a v face's dx_i dyc_j, a w face's and a cell's dx_i dy_j.
struct ControlAreas {
  AreaWeights area;
  const double* xc = nullptr;  // x's centres (the axis tables' zc), null: uniform x
  const double* yc = nullptr;
  BOUSS_HD double x_width(int i) const { return area.x_width(i); }
  BOUSS_HD double y_width(int j) const { return area.y_width(j); }
  BOUSS_HD double x_across(int i) const { return xc ? (xc[i] - xc[i - 1]) * area.rhx : 1.0; }
  BOUSS_HD double y_across(int j) const { return yc ? (yc[j] - yc[j - 1]) * area.rhy : 1.0; }
  BOUSS_HD double u_face(int i, int j) const { return x_across(i) * y_width(j); }
  BOUSS_HD double v_face(int i, int j) const { return x_width(i) * y_across(j); }
  BOUSS_HD double cell(int i, int j) const { return area(i, j); }
};
inline ControlAreas control_areas(const Grid& g, const Backend& backend) {
  ControlAreas c;
  c.area = area_weights(g, backend);
  if (g.stretched(0)) c.xc = g.axis_view<double>(backend, 0).zc.p;
  if (g.stretched(1)) c.yc = g.axis_view<double>(backend, 1).zc.p;
  return c;
}

// Calls f(stencil) with the stencil the grid's geometry needs: uniform, a stretched z, or
// stretched x or y (tables along every axis). The step's launch sites compile their kernels
// for the three kinds through it. f is a named function object (a CUDA extended lambda may
// not sit inside another lambda).
template <class R, class F>
inline void with_stencil(const Grid& g, const Backend& backend, F&& f) {
  if (g.stretched_horizontally()) f(make_general_stencil<R>(g, backend));
  else if (g.stretched()) f(make_stencil<R>(g, backend));
  else f(make_uniform_stencil<R>(g, backend));
}

}  // namespace bouss
