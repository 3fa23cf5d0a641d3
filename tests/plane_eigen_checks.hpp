// The direct solve's dense eigenbases (solver/direct/axis_eigenbasis.hpp) and their plane
// transforms as matrix products (solver/direct/plane_eigen.hpp), on the backend given (the
// CPU's BLAS in the unit tests, cuBLAS in the gpu tests):
// - an axis's basis diagonalizes its second difference, stretched or uniform, walled or
//   periodic (A V = V Lambda), its forward and inverse are each other's inverse, its constant
//   mode is exactly 0 with the axis integral for its forward row, and a uniform walled
//   axis's eigenvalues are the cosine modes';
// - the plane transforms' round trip returns the field, writing the interior alone;
// - the direct solve through the eigenbases equals the FFT and cosine transforms' on uniform
//   axes to round-off, in every mix of periodic and walled axes, on uniform and stretched z.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "grid/stretching.hpp"
#include "line_solver_checks.hpp"
#include "solver/direct/axis_eigenbasis.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/direct/plane_eigen.hpp"
#include "solver/registry.hpp"

namespace bouss {

// Faces to test with: uniform, tanh-clustered at both ends, and random widths (0.5 .. 1.5).
inline std::vector<std::vector<double>> eigenbasis_test_axes(int n) {
  std::vector<double> uniform(n + 1), random(n + 1);
  for (int i = 0; i <= n; ++i) uniform[i] = 2.0 * i / n;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(0.5, 1.5);
  random[0] = -1;
  for (int i = 0; i < n; ++i) random[i + 1] = random[i] + U(rng);
  return {uniform, tanh_faces(n, 0.0, 3.0, 2.0, Cluster::both), random};
}

inline void check_axis_eigenbases() {
  for (const int n : {1, 2, 7, 32})
    for (const AxisTransform kind : {AxisTransform::walled, AxisTransform::periodic})
      for (const std::vector<double>& faces : eigenbasis_test_axes(n)) {
        SCOPED_TRACE(std::to_string(n) + (kind == AxisTransform::walled ? " walled" : " periodic") + ", faces from " +
                     std::to_string(faces[0]) + " width " + std::to_string(faces[1] - faces[0]));
        const AxisEigenbasis e = axis_eigenbasis(faces, kind);
        const std::vector<double> A = axis_second_difference(faces, kind);
        ASSERT_EQ(e.n, n);
        double scale = 0;
        for (double l : e.eigenvalues) scale = std::max(scale, std::fabs(l));
        scale = std::max(scale, 1.0);
        EXPECT_EQ(e.eigenvalues[0], 0.0);
        for (int m = 1; m < n; ++m) {
          EXPECT_LE(e.eigenvalues[m], e.eigenvalues[m - 1]) << m;
          EXPECT_LT(e.eigenvalues[m], 0.0) << m;
        }
        double worst_eigen = 0, worst_identity = 0;
        for (int m = 0; m < n; ++m)
          for (int i = 0; i < n; ++i) {
            // (A V)_im against lambda_m V_im, V = inverse's columns.
            double av = 0;
            for (int l = 0; l < n; ++l) av += A[i + std::size_t(n) * l] * e.inverse[l + std::size_t(n) * m];
            worst_eigen = std::max(worst_eigen, std::fabs(av - e.eigenvalues[m] * e.inverse[i + std::size_t(n) * m]));
            // (forward inverse)_mi against the identity.
            double fi = 0;
            for (int l = 0; l < n; ++l) fi += e.forward[m + std::size_t(n) * l] * e.inverse[l + std::size_t(n) * i];
            worst_identity = std::max(worst_identity, std::fabs(fi - (m == i ? 1.0 : 0.0)));
          }
        const double length = faces[n] - faces[0];
        double biggest_v = 0;
        for (double v : e.inverse) biggest_v = std::max(biggest_v, std::fabs(v));
        EXPECT_LT(worst_eigen, 1e-11 * scale * biggest_v);
        EXPECT_LT(worst_identity, 1e-12 * n);
        for (int i = 0; i < n; ++i)  // the constant mode: the integral over sqrt(L)
          EXPECT_NEAR(e.forward[std::size_t(n) * i], (faces[i + 1] - faces[i]) / std::sqrt(length), 1e-14) << i;
        if (kind == AxisTransform::walled && faces[1] - faces[0] == faces[n] - faces[n - 1] && faces == eigenbasis_test_axes(n)[0]) {
          const double h = faces[1] - faces[0];
          for (int k = 0; k < n; ++k)
            EXPECT_NEAR(e.eigenvalues[k], walled_laplacian_eigenvalue(k, n, 1 / (h * h)), 1e-12 * scale) << k;
        }
      }
}

template <class R>
void check_plane_eigen_round_trip(const Backend& be) {
  const double close = sizeof(R) == sizeof(double) ? 1e-12 : 3e-6;
  for (const std::array<int, 3> n : {std::array<int, 3>{16, 12, 5}, std::array<int, 3>{15, 9, 4}, std::array<int, 3>{33, 1, 3}}) {
    SCOPED_TRACE(testing::PrintToString(n));
    const Layout L = Layout::make(n, 1, sizeof(R));
    const std::array<AxisEigenbasis, 2> bases{axis_eigenbasis(tanh_faces(n[0], 0.0, 2.0, 1.5, Cluster::both), AxisTransform::walled),
                                              axis_eigenbasis(eigenbasis_test_axes(n[1])[2], AxisTransform::periodic)};
    PlaneEigen<R> plane(be, L, bases);
    Field<R> f(be, L, Stagger::centre, "f"), s(be, L, Stagger::centre, "spectrum"), g(be, L, Stagger::centre, "back");
    const std::vector<R> host = test::random_interior<R>(L, 5);
    f.from_host(host);
    g.from_host(std::vector<R>(std::size_t(L.size), R(7)));  // ghosts and padding: the inverse writes the interior alone
    plane.forward(f.data() + L.origin, s.data());
    plane.inverse(s.data(), g.data() + L.origin);
    const std::vector<R> back = g.to_host();
    double worst = 0;
    int untouched = 0, outside = 0;
    for (std::ptrdiff_t idx = 0; idx < L.size; ++idx) {
      bool inside = false;
      for (int k = 0; k < n[2] && !inside; ++k)
        for (int j = 0; j < n[1] && !inside; ++j) {
          const std::ptrdiff_t row = L.origin + L.index(0, j, k);
          inside = idx >= row && idx < row + n[0];
        }
      if (inside) worst = std::max(worst, std::fabs(double(back[idx]) - double(host[idx])));
      else {
        ++outside;
        untouched += back[idx] == R(7);
      }
    }
    EXPECT_LT(worst, close);
    EXPECT_EQ(untouched, outside);
    // The (0, 0) mode of plane 0: its integral over sqrt(Lx Ly).
    const std::vector<R> spec = s.to_host();
    double integral = 0;
    const std::vector<double> fx = tanh_faces(n[0], 0.0, 2.0, 1.5, Cluster::both), fy = eigenbasis_test_axes(n[1])[2];
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        integral += double(host[L.origin + L.index(i, j, 0)]) * (fx[i + 1] - fx[i]) * (fy[j + 1] - fy[j]);
    EXPECT_NEAR(double(spec[0]), integral / std::sqrt(2.0 * (fy[n[1]] - fy[0])), 10 * close);
  }
}

// The direct solve through the eigenbases against the FFT and cosine transforms' on uniform
// horizontal axes: equal to round-off, each converged.
template <class R>
void check_eigen_solve_equals_fast_transforms(const Backend& be) {
  const bool dbl = sizeof(R) == sizeof(double);
  for (const auto& [px, py] : {std::pair{true, true}, std::pair{false, true}, std::pair{true, false}, std::pair{false, false}})
    for (const bool stretched : {false, true})
      for (const std::array<int, 3> n : {std::array<int, 3>{24, 16, 12}, std::array<int, 3>{15, 9, 7}, std::array<int, 3>{20, 1, 9}}) {
        SCOPED_TRACE(std::string("x ") + (px ? "periodic" : "walled") + ", y " + (py ? "periodic" : "walled") +
                     (stretched ? ", z stretched " : ", z uniform ") + testing::PrintToString(n));
        const Grid g = test::fourier_grid(stretched, n, sizeof(R));
        const FieldBC bc = test::pressure_walls(px, py);
        FourierSolver<R> fast(be, g, bc), eigen(be, g, bc, true);
        Field<R> a(be, g.layout, Stagger::centre, "fast"), b(be, g.layout, Stagger::centre, "eigen");
        const SolveStats sa = test::solve_random(fast, g, be, dbl ? 1e-12 : 1e-5, 8, &a);
        const SolveStats sb = test::solve_random(eigen, g, be, dbl ? 1e-12 : 1e-5, 8, &b);
        EXPECT_TRUE(sa.converged) << testing::PrintToString(sa.residual_history);
        EXPECT_TRUE(sb.converged) << testing::PrintToString(sb.residual_history);
        EXPECT_LE(sb.cycles, dbl ? 1 : 2) << testing::PrintToString(sb.residual_history);
        Field<R> ah(Backend::cpu(), g.layout, Stagger::centre, "a"), bh(Backend::cpu(), g.layout, Stagger::centre, "b");
        ah.from_host(a.to_host());
        bh.from_host(b.to_host());
        EXPECT_LT(test::relative_difference(bh, ah, g), dbl ? 1e-11 : 1e-4);
      }
}

// The direct solve on a grid stretched along x (walled) and y (periodic), and z: one pass
// (two in float) meets the tolerance, the residual measured by the flux-form Laplacian of
// every axis (grid/difference_kernels.hpp: not the eigenbases' own algebra); the solution's
// volume integral is zero; the multigrids refuse the grid and auto picks the direct solve.
template <class R>
void check_eigen_solve_on_stretched_axes(const Backend& be) {
  const bool dbl = sizeof(R) == sizeof(double);
  for (const std::array<int, 3> n : {std::array<int, 3>{24, 16, 12}, std::array<int, 3>{15, 9, 7}}) {
    SCOPED_TRACE(testing::PrintToString(n));
    Grid g = test::fourier_grid(true, n, sizeof(R));
    g.stretch(0, tanh_faces(n[0], 0.0, 3.0, 1.5, Cluster::both), false);
    g.stretch(1, eigenbasis_test_axes(n[1])[2], true);  // random widths, periodic
    g.lo[1] = g.faces(1).front();
    g.h[1] = (g.faces(1).back() - g.faces(1).front()) / n[1];
    const FieldBC bc = test::pressure_walls(false, true);
    FourierSolver<R> solver(be, g, bc);
    EXPECT_GT(solver.transform_flops(), 0) << "the eigenbases' path";
    Field<R> x(be, g.layout, Stagger::centre, "x");
    // In float the residual's own round-off on these cells (the thinnest 3 to 5 times thinner
    // than the mean along x and z, 5 to 10 times than the widest) floors near 7e-5: the
    // refinement pass reaches 1e-4.
    const SolveStats s = test::solve_random(solver, g, be, dbl ? 1e-11 : 1e-4, 8, &x);
    EXPECT_TRUE(s.converged) << testing::PrintToString(s.residual_history);
    EXPECT_LE(s.cycles, dbl ? 1 : 2) << testing::PrintToString(s.residual_history);
    const std::vector<R> hx = x.to_host();
    double integral = 0, size = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          const double v = hx[g.layout.origin + g.layout.index(i, j, k)];
          integral += v * g.cell_volume(i, j, k);
          size += std::fabs(v) * g.cell_volume(i, j, k);
        }
    EXPECT_LT(std::fabs(integral), (dbl ? 1e-12 : 1e-5) * size);
    const PressureGrid pg = PressureGrid::of(g, bc);
    EXPECT_TRUE(pg.stretched_xy);
    for (const char* refused : {"multigrid", "line_multigrid", "line_pcg"}) {
      const auto why = find_solver(refused)->refuses(pg);
      ASSERT_TRUE(why.has_value()) << refused;
      EXPECT_NE(why->message.find("stretched along x or y"), std::string::npos) << why->message;
    }
    EXPECT_FALSE(find_solver("direct")->refuses(pg).has_value());
  }
}

}  // namespace bouss
