// Operator exactness checks, run on any backend and in either precision R of the fields:
// the unit suite calls them on the CPU, the gpu suite on CUDA. Each second-order operator
// must be exact (to round-off, test_support.hpp roundoff_tolerance) on the polynomials it
// is built to reproduce. Ghosts are set from the same polynomial so that every interior
// point sees it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/stretching.hpp"
#include "physics/flow.hpp"
#include "test_support.hpp"

namespace bouss::test {

// A z of 8 cells from 1 to 2, tanh-clustered towards both ends (adjacent cells differ by up
// to 1.33), for the checks that hold on a stretched grid too.
inline std::vector<double> stretched_fixture_faces() { return tanh_faces(8, 1.0, 1.0, 1.5, Cluster::both); }

// x and y of the fixture, tanh-clustered towards their walls, for the checks on a grid
// stretched along every axis.
inline std::vector<double> stretched_fixture_faces_x() { return tanh_faces(6, 0.25, 3.0, 1.2, Cluster::both); }
inline std::vector<double> stretched_fixture_faces_y() { return tanh_faces(5, -0.5, 1.5, 1.0, Cluster::both); }

// The fixture's grid is laid out for R's element size, as a run in precision R has it;
// `stretched`: z stretched, `horizontal`: x and y too (walled).
template <class R>
struct OperatorFixture {
  Grid g;
  Backend be;
  FlowFields<R> now, G, next;
  Field<R> scalar;
  std::array<Box, 4> all;

  explicit OperatorFixture(const Backend& b, bool stretched = false, bool horizontal = false)
      : g(stretched ? Grid::make_stretched({6, 5, 8}, {0.25, -0.5, 1.0}, {3.0, 1.5, 1.0}, stretched_fixture_faces(), 1,
                                           sizeof(R))
                    : Grid::make({6, 5, 4}, {0.25, -0.5, 1.0}, {3.0, 1.5, 1.0}, 1, sizeof(R))),
        be(b) {
    if (horizontal) {
      g.stretch(0, stretched_fixture_faces_x(), false);
      g.stretch(1, stretched_fixture_faces_y(), false);
    }
    now = FlowFields<R>::make(be, g.layout, "");
    G = FlowFields<R>::make(be, g.layout, " G");
    next = FlowFields<R>::make(be, g.layout, " next");
    scalar = Field<R>(be, g.layout, Stagger::centre, "phi");
    for (int c = 0; c < 4; ++c) {
      fill(now[c], 0);
      fill(G[c], 0);
      fill(next[c], 0);
      all[c] = g.layout.interior(c == 3 ? Stagger::centre : Stagger(c + 1));
    }
  }
  // One forward-Euler step with dt = 1: G receives the tendency of each field.
  void tendencies(const Coefficients& c) { advance_ab2(g, c, 1.0, 1.0, 0.0, now, G, next, all); }
  // max |f| over the padded points of stagger s: the size of the values an operator reads.
  double size(Stagger s, const std::function<double(double, double, double)>& f) const {
    return max_abs_over(g, s, g.layout.padded(s), f);
  }
  double max_rd() const { return 1 / std::min({g.min_width(0), g.min_width(1), g.min_dz()}); }
};

// Exact on a stretched z too: the z-difference of z^2 over a cell is its centre's 2z.
template <class R>
void check_divergence_exact(const Backend& be, bool stretched = false, bool horizontal = false) {
  OperatorFixture<R> f(be, stretched, horizontal);
  const Layout& L = f.g.layout;
  // Linear: div = 2 - 3 + 0 = -1; quadratic: d(x^2)/dx + d(y^2)/dy + d(z^2)/dz = 2(x+y+z).
  auto u1 = [](double x, double y, double z) { return 1 + 2 * x + y - z; };
  auto v1 = [](double x, double y, double z) { return -3 * y + x * 0.5 + z; };
  auto w1 = [](double x, double y, double) { return 0.5 * x - y; };
  set_field(f.now.u, f.g, u1);
  set_field(f.now.v, f.g, v1);
  set_field(f.now.w, f.g, w1);
  Field<R> out(be, L, Stagger::centre, "div");
  fill(out, 0);
  divergence(f.g, f.now, out, 1.0);
  const double size1 =
      std::max({f.size(Stagger::face_x, u1), f.size(Stagger::face_y, v1), f.size(Stagger::face_z, w1)}) * f.max_rd();
  expect_roundoff<R>(max_error(out, f.g, L.interior(Stagger::centre), [](double, double, double) { return -1.0; }),
                     size1, "divergence of a linear velocity");
  auto u2 = [](double x, double, double) { return x * x; };
  auto v2 = [](double, double y, double) { return y * y; };
  auto w2 = [](double, double, double z) { return z * z; };
  set_field(f.now.u, f.g, u2);
  set_field(f.now.v, f.g, v2);
  set_field(f.now.w, f.g, w2);
  divergence(f.g, f.now, out, 2.0);
  const double size2 =
      2 * std::max({f.size(Stagger::face_x, u2), f.size(Stagger::face_y, v2), f.size(Stagger::face_z, w2)}) * f.max_rd();
  expect_roundoff<R>(max_error(out, f.g, L.interior(Stagger::centre),
                               [](double x, double y, double z) { return 4 * (x + y + z); }),
                     size2, "divergence of a quadratic velocity");
}

template <class R>
void check_gradient_exact(const Backend& be) {
  OperatorFixture<R> f(be);
  auto phi = [](double x, double y, double z) { return x * x + 2 * y * y + 3 * z * z + x * y - z + 0.5; };
  set_field(f.scalar, f.g, phi);
  subtract_gradient(f.g, f.scalar, 1.0, f.now, f.all);  // u = 0 - grad(phi) on the faces
  const Layout& L = f.g.layout;
  const double size = f.size(Stagger::centre, phi) * f.max_rd();
  expect_roundoff<R>(max_error(f.now.u, f.g, L.interior(Stagger::face_x),
                               [](double x, double y, double) { return -(2 * x + y); }),
                     size, "x-gradient");
  expect_roundoff<R>(max_error(f.now.v, f.g, L.interior(Stagger::face_y),
                               [](double x, double y, double) { return -(4 * y + x); }),
                     size, "y-gradient");
  expect_roundoff<R>(max_error(f.now.w, f.g, L.interior(Stagger::face_z),
                               [](double, double, double z) { return -(6 * z - 1); }),
                     size, "z-gradient");
}

template <class R>
void check_laplacian_exact(const Backend& be) {
  OperatorFixture<R> f(be);
  Coefficients c;
  c.nu = 1.5;
  c.kappa = 0.5;
  const double rd2 = f.max_rd() * f.max_rd();
  const Layout& L = f.g.layout;
  // Scalar: lap(x^2 + 2y^2 + 3z^2 + xy) = 12; kappa lap = 6.
  auto T = [](double x, double y, double z) { return x * x + 2 * y * y + 3 * z * z + x * y; };
  set_field(f.now.T, f.g, T);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.T, f.g, L.interior(Stagger::centre), [](double, double, double) { return 6.0; }),
                     c.kappa * f.size(Stagger::centre, T) * rd2, "diffusion of T");
  // Each velocity component alone, varying only across itself so that it advects nothing.
  fill(f.now.T, 0);
  auto u = [](double, double y, double z) { return y * y - 2 * z * z + y; };  // lap = -2
  set_field(f.now.u, f.g, u);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.u, f.g, L.interior(Stagger::face_x), [](double, double, double) { return -3.0; }),
                     c.nu * f.size(Stagger::face_x, u) * rd2, "diffusion of u");
  fill(f.now.u, 0);
  auto v = [](double x, double, double z) { return 3 * x * x + z * z; };  // lap = 8
  set_field(f.now.v, f.g, v);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.v, f.g, L.interior(Stagger::face_y), [](double, double, double) { return 12.0; }),
                     c.nu * f.size(Stagger::face_y, v) * rd2, "diffusion of v");
  fill(f.now.v, 0);
  auto w = [](double x, double y, double) { return x * y + 0.5 * y * y; };  // lap = 1
  set_field(f.now.w, f.g, w);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.w, f.g, L.interior(Stagger::face_z), [](double, double, double) { return 1.5; }),
                     c.nu * f.size(Stagger::face_z, w) * rd2, "diffusion of w");
}

template <class R>
void check_scalar_advection_exact(const Backend& be) {
  OperatorFixture<R> f(be);
  Coefficients c;  // no diffusion: G_T = -div(u T)
  const Layout& L = f.g.layout;
  // Constant velocity, quadratic T: div(uT) = u.grad T, exact for the centred flux.
  set_field(f.now.u, f.g, [](double, double, double) { return 0.7; });
  set_field(f.now.v, f.g, [](double, double, double) { return -1.1; });
  set_field(f.now.w, f.g, [](double, double, double) { return 0.3; });
  auto T1 = [](double x, double y, double z) { return x * x - y * z + 2 * z * z + x; };
  set_field(f.now.T, f.g, T1);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.T, f.g, L.interior(Stagger::centre),
                               [](double x, double y, double z) {
                                 return -(0.7 * (2 * x + 1) - 1.1 * (-z) + 0.3 * (-y + 4 * z));
                               }),
                     1.1 * f.size(Stagger::centre, T1) * f.max_rd(),  // 1.1: the largest |velocity|
                     "advection of T by a constant velocity");
  // Linear (divergent) velocity, linear T: the flux u T is quadratic, its centred difference exact.
  auto u = [](double x, double, double) { return x; };
  auto v = [](double, double y, double) { return 2 * y; };
  auto w = [](double, double, double z) { return -z + 1; };
  auto T2 = [](double x, double y, double z) { return 1 + x + 3 * y - 2 * z; };
  set_field(f.now.u, f.g, u);
  set_field(f.now.v, f.g, v);
  set_field(f.now.w, f.g, w);
  set_field(f.now.T, f.g, T2);
  f.tendencies(c);
  const double U = std::max({f.size(Stagger::face_x, u), f.size(Stagger::face_y, v), f.size(Stagger::face_z, w)});
  expect_roundoff<R>(max_error(f.G.T, f.g, L.interior(Stagger::centre),
                               [](double x, double y, double z) {
                                 const double T = 1 + x + 3 * y - 2 * z;
                                 // div(uT) = T div(u) + u.grad(T), div(u) = 1 + 2 - 1
                                 return -(2 * T + x * 1 + 2 * y * 3 + (-z + 1) * (-2));
                               }),
                     U * f.size(Stagger::centre, T2) * f.max_rd(), "advection of T by a linear velocity");
}

template <class R>
void check_momentum_advection_exact(const Backend& be) {
  OperatorFixture<R> f(be);
  Coefficients c;
  const Layout& L = f.g.layout;
  // A linear velocity field: every flux is quadratic, so its centred difference is exact.
  auto U = [](double x, double y, double) { return x + 0.5 + 0.2 * y; };
  auto V = [](double, double y, double z) { return -y + 0.3 * z; };
  auto W = [](double x, double, double z) { return 0.5 * z - 0.1 * x; };
  set_field(f.now.u, f.g, U);
  set_field(f.now.v, f.g, V);
  set_field(f.now.w, f.g, W);
  f.tendencies(c);
  const double speed = std::max({f.size(Stagger::face_x, U), f.size(Stagger::face_y, V), f.size(Stagger::face_z, W)});
  const double size = speed * speed * f.max_rd();
  // div(u u_A) = u_A div(u) + u.grad(u_A), div(u) = 1 - 1 + 0.5 = 0.5
  expect_roundoff<R>(max_error(f.G.u, f.g, L.interior(Stagger::face_x),
                               [&](double x, double y, double z) {
                                 return -(0.5 * U(x, y, z) + U(x, y, z) * 1 + V(x, y, z) * 0.2);
                               }),
                     size, "advection of u");
  expect_roundoff<R>(max_error(f.G.v, f.g, L.interior(Stagger::face_y),
                               [&](double x, double y, double z) {
                                 return -(0.5 * V(x, y, z) + V(x, y, z) * -1 + W(x, y, z) * 0.3);
                               }),
                     size, "advection of v");
  expect_roundoff<R>(max_error(f.G.w, f.g, L.interior(Stagger::face_z),
                               [&](double x, double y, double z) {
                                 return -(0.5 * W(x, y, z) + U(x, y, z) * -0.1 + W(x, y, z) * 0.5);
                               }),
                     size, "advection of w");
}

// Exact on a stretched z too: linear interpolation to the faces.
template <class R>
void check_buoyancy_exact(const Backend& be, bool stretched = false, bool horizontal = false) {
  OperatorFixture<R> f(be, stretched, horizontal);
  Coefficients c;
  c.b_T = 2.5;
  c.reference = {0.3, 0.7, 0.1};  // the field is theta = T - T_ref(z): the buoyancy is b_T theta
  auto T = [](double x, double y, double z) { return 0.1 * x - y + 4 * z; };
  set_field(f.now.T, f.g, T);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.w, f.g, f.g.layout.interior(Stagger::face_z),
                               [](double x, double y, double z) { return 2.5 * (0.1 * x - y + 4 * z); }),
                     c.b_T * f.size(Stagger::centre, T), "buoyancy");
}

// Conservation on a stretched z: summed over the cells with their volumes, the flux forms
// telescope to what crosses the boundary. In a box with walls (no normal velocity at any
// face, insulating: the ghosts mirror T) the advection of T and the diffusion of T sum to
// zero, to round-off, whatever the fields inside.
template <class R>
void check_conservation_on_a_stretched_grid(const Backend& be, bool horizontal = false) {
  OperatorFixture<R> f(be, true, horizontal);
  Coefficients c;
  c.kappa = 0.8;
  const Layout& L = f.g.layout;
  set_field(f.now.u, f.g, [](double x, double y, double z) { return std::sin(3 * x + y) * z; });
  set_field(f.now.v, f.g, [](double x, double y, double z) { return std::cos(x - 2 * y) + z * z; });
  set_field(f.now.w, f.g, [](double x, double y, double z) { return std::sin(x * y + 5 * z); });
  set_field(f.now.T, f.g, [](double x, double y, double z) { return std::exp(0.3 * x - y) * std::cos(4 * z); });
  FieldBC walls;
  for (int face = 0; face < 6; ++face) walls.face[face] = FaceBC{BoundaryKind::value, 0, 0};
  FieldBC insulating;
  for (int face = 0; face < 6; ++face) insulating.face[face] = FaceBC{BoundaryKind::gradient, 0, 0};
  FieldBC bcs[4] = {walls, walls, walls, insulating};
  for (int comp = 0; comp < 4; ++comp) {
    // The walls: zero normal velocity on the boundary faces, tangential values as they are.
    FieldBC b = comp < 3 ? insulating : bcs[3];
    if (comp < 3) b.face[2 * comp] = b.face[2 * comp + 1] = FaceBC{BoundaryKind::value, 0, 0};
    fill_ghosts(f.now[comp], b, f.g);
  }
  f.tendencies(c);
  const std::vector<R> G = f.G.T.to_host(), T = f.now.T.to_host();
  double sum = 0, size = 0;
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) {
        const std::ptrdiff_t idx = L.origin + L.index(i, j, k);
        sum += double(G[idx]) * f.g.cell_volume(i, j, k);
        // The terms' size: |T| times the velocity's (at most 2) rate plus the diffusive rate.
        size += std::fabs(double(T[idx])) * f.g.cell_volume(i, j, k) * (2 + c.kappa * f.max_rd()) * f.max_rd();
      }
  expect_roundoff<R>(std::fabs(sum), size,
                     "the volume integral of T's tendency in a closed box");
}

// Exact on stretched x and y where the forms are: the gradient of a linear pressure, the
// advection of a linear T by a constant velocity (linear interpolation to the faces).
template <class R>
void check_linear_fields_exact_on_stretched_axes(const Backend& be) {
  OperatorFixture<R> f(be, true, true);
  const Layout& L = f.g.layout;
  auto phi = [](double x, double y, double z) { return 2 * x - 3 * y + 0.5 * z + 1; };
  set_field(f.scalar, f.g, phi);
  subtract_gradient(f.g, f.scalar, 1.0, f.now, f.all);
  const double size = f.size(Stagger::centre, phi) * f.max_rd();
  expect_roundoff<R>(max_error(f.now.u, f.g, L.interior(Stagger::face_x), [](double, double, double) { return -2.0; }),
                     size, "x-gradient, stretched x");
  expect_roundoff<R>(max_error(f.now.v, f.g, L.interior(Stagger::face_y), [](double, double, double) { return 3.0; }),
                     size, "y-gradient, stretched y");
  Coefficients c;
  set_field(f.now.u, f.g, [](double, double, double) { return 0.7; });
  set_field(f.now.v, f.g, [](double, double, double) { return -1.1; });
  set_field(f.now.w, f.g, [](double, double, double) { return 0.3; });
  auto T = [](double x, double y, double z) { return x - 2 * y + 3 * z; };
  set_field(f.now.T, f.g, T);
  f.tendencies(c);
  expect_roundoff<R>(max_error(f.G.T, f.g, L.interior(Stagger::centre),
                               [](double, double, double) { return -(0.7 - 1.1 * -2 + 0.3 * 3); }),
                     1.1 * f.size(Stagger::centre, T) * f.max_rd(), "advection of a linear T, stretched x and y");
}

// Second order on stretched x, y and z: the tendencies of smooth fields (diffusion and
// advection of T and of each velocity component) on a grid stretched smoothly along every
// axis converge to the analytic ones at order 2 (the error falls 4x when the cells halve, at
// least 3x here) in the interior away from the walls' ghosts.
inline void check_second_order_on_stretched_axes(const Backend& be) {
  using R = double;
  const auto T = [](double x, double y, double z) { return std::sin(x + 0.5) * std::cos(2 * y) * std::exp(-z); };
  const auto U = [](double x, double y, double z) { return std::cos(x) * std::sin(y + z); };
  // lap T = (-1 - 4 + 1) T = -4 T
  const auto lapT = [&](double x, double y, double z) { return -4 * T(x, y, z); };
  // lap U = (-1 - 1 - 1) U = -3 U
  const auto lapU = [&](double x, double y, double z) { return -3 * U(x, y, z); };
  double errT[2], errU[2];
  for (int r = 0; r < 2; ++r) {
    const int n = 12 << r;
    Grid g = Grid::make({n, n, n}, {0, 0, 0}, {1.5, 1.0, 1.0}, 1, sizeof(R));
    g.stretch(0, tanh_faces(n, 0.0, 1.5, 1.0, Cluster::both), false);
    g.stretch(1, tanh_faces(n, 0.0, 1.0, 1.0, Cluster::low), false);
    g.stretch(2, tanh_faces(n, 0.0, 1.0, 1.0, Cluster::high), false);
    FlowFields<R> now = FlowFields<R>::make(be, g.layout, ""), G = FlowFields<R>::make(be, g.layout, " G"),
                  next = FlowFields<R>::make(be, g.layout, " next");
    std::array<Box, 4> all;
    for (int c = 0; c < 4; ++c) {
      fill(now[c], 0);
      fill(G[c], 0);
      fill(next[c], 0);
      all[c] = g.layout.interior(c == 3 ? Stagger::centre : Stagger(c + 1));
    }
    set_field(now.T, g, T);
    set_field(now.u, g, U);
    Coefficients c;
    c.kappa = 1;
    c.nu = 1;
    advance_ab2(g, c, 1.0, 1.0, 0.0, now, G, next, all);
    // With v = w = 0: G_T = lap T - d(u T)/dx; G_u = lap u - d(u u)/dx.
    const auto GT = [&](double x, double y, double z) {
      return lapT(x, y, z) - (-std::sin(x) * std::sin(y + z) * T(x, y, z) +
                              U(x, y, z) * std::cos(x + 0.5) * std::cos(2 * y) * std::exp(-z));
    };
    const auto Gu = [&](double x, double y, double z) { return lapU(x, y, z) - 2 * U(x, y, z) * -std::sin(x) * std::sin(y + z); };
    // Two points in from every wall: beyond a wall the ghosts mirror the cells, a kink in the
    // widths that makes the first points' forms first order (as on a stretched z).
    const auto inner = [&](Box b) {
      for (int a = 0; a < 3; ++a) {
        b.lo[a] += 2;
        b.hi[a] -= 2;
      }
      return b;
    };
    errT[r] = max_error(G.T, g, inner(g.layout.interior(Stagger::centre)), GT);
    errU[r] = max_error(G.u, g, inner(g.layout.interior(Stagger::face_x)), Gu);
  }
  EXPECT_GT(errT[0] / errT[1], 3.0) << errT[0] << " " << errT[1];
  EXPECT_GT(errU[0] / errU[1], 3.0) << errU[0] << " " << errU[1];
  EXPECT_LT(errT[1], 0.05);
}

}  // namespace bouss::test
