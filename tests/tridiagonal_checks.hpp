// The batched tridiagonal solves (solver/line/tridiagonal.hpp) against a dense LU with partial
// pivoting, for random diagonally dominant rows, every variant, lengths odd and powers of two.
// The unit suite runs them on the CPU, the gpu suite on CUDA.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "grid/field_ops.hpp"
#include "solver/line/tridiagonal.hpp"
#include "test_support.hpp"

namespace bouss::test {

// Solves the dense n x n system M y = f (row-major) by Gaussian elimination with partial
// pivoting, in long double. `band`: the rows below and columns right of the pivot that can
// hold non-zeros (n for a general matrix; for a tridiagonal one, 1 below and 2 to the right,
// as pivoting fills one more diagonal), which keeps n = 1024 quick.
inline std::vector<double> dense_lu_solve(std::vector<long double> M, std::vector<long double> f, int n, int below = -1,
                                          int right = -1) {
  if (below < 0) below = n;
  if (right < 0) right = n;
  for (int p = 0; p < n; ++p) {
    const int last_row = std::min(n - 1, p + below), last_col = std::min(n - 1, p + right);
    int best = p;
    for (int q = p + 1; q <= last_row; ++q)
      if (std::fabs(M[q * n + p]) > std::fabs(M[best * n + p])) best = q;
    if (best != p) {
      for (int col = p; col <= last_col; ++col) std::swap(M[p * n + col], M[best * n + col]);
      std::swap(f[p], f[best]);
    }
    for (int q = p + 1; q <= last_row; ++q) {
      const long double m = M[q * n + p] / M[p * n + p];
      for (int col = p; col <= last_col; ++col) M[q * n + col] -= m * M[p * n + col];
      f[q] -= m * f[p];
    }
  }
  std::vector<double> y(n);
  for (int p = n - 1; p >= 0; --p) {
    long double s = f[p];
    for (int col = p + 1; col <= std::min(n - 1, p + right); ++col) s -= M[p * n + col] * y[col];
    y[p] = double(s / M[p * n + p]);
  }
  return y;
}

// Random rows with |b| >= |a| + |c| + 0.5 (diagonally dominant), random right-hand sides in
// 5 x 3 columns of n rows; each variant's x against the dense solve of every column.
template <class R>
void check_tridiagonal_against_dense(const Backend& be, int n, TridiagonalMethod method) {
  std::mt19937_64 rng(1000 + n);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> a(n), b(n), c(n);
  for (int k = 0; k < n; ++k) {
    a[k] = k ? U(rng) : 0.0;
    c[k] = k + 1 < n ? U(rng) : 0.0;
    b[k] = (U(rng) < 0 ? -1 : 1) * (std::fabs(a[k]) + std::fabs(c[k]) + 0.5 + std::fabs(U(rng)));
  }
  const Layout L = Layout::make({5, 3, n}, 1, sizeof(R));
  BatchedTridiagonal<R> solver(be, L, a, b, c);
  if (method == TridiagonalMethod::pcr && !solver.pcr_fits()) GTEST_SKIP() << "pcr does not take " << n << " rows";
  Field<R> r(be, L, Stagger::centre, "r"), x(be, L, Stagger::centre, "x");
  fill(r, 0);
  fill(x, 0);
  std::vector<R> host(L.size, 0);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 5; ++i) host[L.origin + L.index(i, j, k)] = R(U(rng));
  r.from_host(host);
  solver.solve(r, x, method);
  const std::vector<R> got = x.to_host();
  double worst = 0, size = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 5; ++i) {
      std::vector<long double> M(std::size_t(n) * n, 0), f(n);
      for (int k = 0; k < n; ++k) {
        if (k) M[k * n + k - 1] = a[k];
        M[k * n + k] = b[k];
        if (k + 1 < n) M[k * n + k + 1] = c[k];
        f[k] = host[L.origin + L.index(i, j, k)];
      }
      const std::vector<double> y = dense_lu_solve(M, f, n, 1, 2);
      for (int k = 0; k < n; ++k) {
        worst = std::max(worst, std::fabs(double(got[L.origin + L.index(i, j, k)]) - y[k]));
        size = std::max(size, std::fabs(y[k]));
      }
    }
  // Dominant rows: the solve is stable, its error a few ulps of the solution's size.
  EXPECT_LT(worst, 64 * std::numeric_limits<R>::epsilon() * (size + 1))
      << tridiagonal_method_name(method) << " n = " << n << " in " << precision_name<R>();
}

inline const std::vector<int>& tridiagonal_lengths() {
  static const std::vector<int> lengths{1, 2, 3, 7, 64, 127, 128};
  return lengths;
}

}  // namespace bouss::test
