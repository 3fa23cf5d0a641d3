// Operator exactness checks, run on any backend: the unit suite calls them on the CPU,
// the gpu suite on CUDA. Each second-order operator must be exact (to round-off) on the
// polynomials it is built to reproduce. Ghosts are set from the same polynomial so that
// every interior point sees it.
#pragma once

#include <gtest/gtest.h>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "physics/flow.hpp"
#include "test_support.hpp"

namespace bouss::test {

struct OperatorFixture {
  Grid g = Grid::make({6, 5, 4}, {0.25, -0.5, 1.0}, {3.0, 1.5, 1.0});
  Backend be;
  FlowFields<double> now, G, next;
  Field<double> scalar;
  std::array<Box, 4> all;

  explicit OperatorFixture(const Backend& b) : be(b) {
    now = FlowFields<double>::make(be, g.layout, "");
    G = FlowFields<double>::make(be, g.layout, " G");
    next = FlowFields<double>::make(be, g.layout, " next");
    scalar = Field<double>(be, g.layout, Stagger::centre, "phi");
    for (int c = 0; c < 4; ++c) {
      fill(now[c], 0);
      fill(G[c], 0);
      fill(next[c], 0);
      all[c] = g.layout.interior(c == 3 ? Stagger::centre : Stagger(c + 1));
    }
  }
  // One forward-Euler step with dt = 1: G receives the tendency of each field.
  void tendencies(const Coefficients& c) { advance_ab2(g, c, 1.0, AB2Coefficients{1, 0}, now, G, next, all); }
};

constexpr double exact_tol = 1e-12;

inline void check_divergence_exact(const Backend& be) {
  OperatorFixture f(be);
  // Linear: div = 2 - 3 + 0 = -1; quadratic: d(x^2)/dx + d(y^2)/dy + d(z^2)/dz = 2(x+y+z).
  set_field(f.now.u, f.g, [](double x, double y, double z) { return 1 + 2 * x + y - z; });
  set_field(f.now.v, f.g, [](double x, double y, double z) { return -3 * y + x * 0.5 + z; });
  set_field(f.now.w, f.g, [](double x, double y, double) { return 0.5 * x - y; });
  Field<double> out(be, f.g.layout, Stagger::centre, "div");
  fill(out, 0);
  divergence(f.g, f.now, out, 1.0);
  EXPECT_LT(max_error(out, f.g, f.g.layout.interior(Stagger::centre), [](double, double, double) { return -1.0; }),
            exact_tol);
  set_field(f.now.u, f.g, [](double x, double, double) { return x * x; });
  set_field(f.now.v, f.g, [](double, double y, double) { return y * y; });
  set_field(f.now.w, f.g, [](double, double, double z) { return z * z; });
  divergence(f.g, f.now, out, 2.0);
  EXPECT_LT(max_error(out, f.g, f.g.layout.interior(Stagger::centre),
                      [](double x, double y, double z) { return 4 * (x + y + z); }),
            exact_tol);
}

inline void check_gradient_exact(const Backend& be) {
  OperatorFixture f(be);
  auto phi = [](double x, double y, double z) { return x * x + 2 * y * y + 3 * z * z + x * y - z + 0.5; };
  set_field(f.scalar, f.g, phi);
  subtract_gradient(f.g, f.scalar, 1.0, f.now, f.all);  // u = 0 - grad(phi) on the faces
  const Layout& L = f.g.layout;
  EXPECT_LT(max_error(f.now.u, f.g, L.interior(Stagger::face_x), [](double x, double y, double) { return -(2 * x + y); }),
            exact_tol);
  EXPECT_LT(max_error(f.now.v, f.g, L.interior(Stagger::face_y), [](double x, double y, double) { return -(4 * y + x); }),
            exact_tol);
  EXPECT_LT(max_error(f.now.w, f.g, L.interior(Stagger::face_z), [](double, double, double z) { return -(6 * z - 1); }),
            exact_tol);
}

inline void check_laplacian_exact(const Backend& be) {
  OperatorFixture f(be);
  Coefficients c;
  c.nu = 1.5;
  c.kappa = 0.5;
  // Scalar: lap(x^2 + 2y^2 + 3z^2 + xy) = 12; kappa lap = 6.
  set_field(f.now.T, f.g, [](double x, double y, double z) { return x * x + 2 * y * y + 3 * z * z + x * y; });
  f.tendencies(c);
  const Layout& L = f.g.layout;
  EXPECT_LT(max_error(f.G.T, f.g, L.interior(Stagger::centre), [](double, double, double) { return 6.0; }), exact_tol);
  // Each velocity component alone, varying only across itself so that it advects nothing.
  fill(f.now.T, 0);
  set_field(f.now.u, f.g, [](double, double y, double z) { return y * y - 2 * z * z + y; });  // lap = -2
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.u, f.g, L.interior(Stagger::face_x), [](double, double, double) { return -3.0; }), exact_tol);
  fill(f.now.u, 0);
  set_field(f.now.v, f.g, [](double x, double, double z) { return 3 * x * x + z * z; });  // lap = 8
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.v, f.g, L.interior(Stagger::face_y), [](double, double, double) { return 12.0; }), exact_tol);
  fill(f.now.v, 0);
  set_field(f.now.w, f.g, [](double x, double y, double) { return x * y + 0.5 * y * y; });  // lap = 1
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.w, f.g, L.interior(Stagger::face_z), [](double, double, double) { return 1.5; }), exact_tol);
}

inline void check_scalar_advection_exact(const Backend& be) {
  OperatorFixture f(be);
  Coefficients c;  // no diffusion: G_T = -div(u T)
  const Layout& L = f.g.layout;
  // Constant velocity, quadratic T: div(uT) = u.grad T, exact for the centred flux.
  set_field(f.now.u, f.g, [](double, double, double) { return 0.7; });
  set_field(f.now.v, f.g, [](double, double, double) { return -1.1; });
  set_field(f.now.w, f.g, [](double, double, double) { return 0.3; });
  set_field(f.now.T, f.g, [](double x, double y, double z) { return x * x - y * z + 2 * z * z + x; });
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.T, f.g, L.interior(Stagger::centre),
                      [](double x, double y, double z) { return -(0.7 * (2 * x + 1) - 1.1 * (-z) + 0.3 * (-y + 4 * z)); }),
            exact_tol);
  // Linear (divergent) velocity, linear T: the flux u T is quadratic, its centred difference exact.
  set_field(f.now.u, f.g, [](double x, double, double) { return x; });
  set_field(f.now.v, f.g, [](double, double y, double) { return 2 * y; });
  set_field(f.now.w, f.g, [](double, double, double z) { return -z + 1; });
  set_field(f.now.T, f.g, [](double x, double y, double z) { return 1 + x + 3 * y - 2 * z; });
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.T, f.g, L.interior(Stagger::centre),
                      [](double x, double y, double z) {
                        const double T = 1 + x + 3 * y - 2 * z;
                        // div(uT) = T div(u) + u.grad(T), div(u) = 1 + 2 - 1
                        return -(2 * T + x * 1 + 2 * y * 3 + (-z + 1) * (-2));
                      }),
            1e-11);
}

inline void check_momentum_advection_exact(const Backend& be) {
  OperatorFixture f(be);
  Coefficients c;
  const Layout& L = f.g.layout;
  // A linear velocity field: every flux is quadratic, so its centred difference is exact.
  set_field(f.now.u, f.g, [](double x, double y, double) { return x + 0.5 + 0.2 * y; });
  set_field(f.now.v, f.g, [](double, double y, double z) { return -y + 0.3 * z; });
  set_field(f.now.w, f.g, [](double x, double, double z) { return 0.5 * z - 0.1 * x; });
  f.tendencies(c);
  // div(u u_A) = u_A div(u) + u.grad(u_A), div(u) = 1 - 1 + 0.5 = 0.5
  auto U = [](double x, double y, double) { return x + 0.5 + 0.2 * y; };
  auto V = [](double, double y, double z) { return -y + 0.3 * z; };
  auto W = [](double x, double, double z) { return 0.5 * z - 0.1 * x; };
  EXPECT_LT(max_error(f.G.u, f.g, L.interior(Stagger::face_x),
                      [&](double x, double y, double z) {
                        return -(0.5 * U(x, y, z) + U(x, y, z) * 1 + V(x, y, z) * 0.2);
                      }),
            1e-11);
  EXPECT_LT(max_error(f.G.v, f.g, L.interior(Stagger::face_y),
                      [&](double x, double y, double z) {
                        return -(0.5 * V(x, y, z) + V(x, y, z) * -1 + W(x, y, z) * 0.3);
                      }),
            1e-11);
  EXPECT_LT(max_error(f.G.w, f.g, L.interior(Stagger::face_z),
                      [&](double x, double y, double z) {
                        return -(0.5 * W(x, y, z) + U(x, y, z) * -0.1 + W(x, y, z) * 0.5);
                      }),
            1e-11);
}

inline void check_buoyancy_exact(const Backend& be) {
  OperatorFixture f(be);
  Coefficients c;
  c.b_T = 2.5;
  c.T_ref = 0.3;
  set_field(f.now.T, f.g, [](double x, double y, double z) { return 0.1 * x - y + 4 * z; });
  f.tendencies(c);
  EXPECT_LT(max_error(f.G.w, f.g, f.g.layout.interior(Stagger::face_z),
                      [](double x, double y, double z) { return 2.5 * (0.1 * x - y + 4 * z - 0.3); }),
            exact_tol);
}

}  // namespace bouss::test
