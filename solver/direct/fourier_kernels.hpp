// Pointwise pieces of the Fourier-tridiagonal pressure solver (solver/direct/fourier_solver.hpp):
// the eigenvalues of the second-order Laplacian along a periodic axis (its modified
// wavenumbers), and the tridiagonal rows of one horizontal mode's vertical line.
#pragma once

#include <cmath>

#include "grid/config.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/line/tridiagonal_kernels.hpp"

namespace bouss {

// The eigenvalue of the second-order difference (u_{i+1} - 2 u_i + u_{i-1}) / h^2 on a
// periodic axis of n cells for wavenumber m: (2 cos(2 pi m / n) - 2) / h^2 (rh2 = 1/h^2),
// at most 0. Shared by the Fourier solver and the fully periodic cuFFT baseline.
BOUSS_HD inline double periodic_laplacian_eigenvalue(int m, int n, double rh2) {
  constexpr double two_pi = 6.283185307179586476925286766559;
  return (2 * cos(two_pi * m / n) - 2) * rh2;
}

// How the direct solve transforms a horizontal axis: a periodic one by the discrete Fourier
// transform, a walled one (the pressure's homogeneous Neumann walls) by the cosine transform
// DCT-II (DCT-III back), whose basis diagonalizes the cell-centred Neumann difference.
enum class AxisTransform : signed char { periodic, walled };

// The eigenvalue of the second-order difference on a walled axis of n cells (the walls'
// ghosts mirroring the first and last cells) for cosine mode k: (2 cos(pi k / n) - 2) / h^2.
BOUSS_HD inline double walled_laplacian_eigenvalue(int k, int n, double rh2) {
  constexpr double pi = 3.14159265358979323846264338327950;
  return (2 * cos(pi * k / n) - 2) * rh2;
}

// The eigenvalue of a real-to-real spectrum's index j along an axis: a walled axis's cosine
// mode j; a periodic axis in the halfcomplex order (FFTW's R2HC: the real parts of
// wavenumbers 0 .. n/2, then the imaginary parts of n - j), wavenumber min(j, n - j).
BOUSS_HD inline double axis_laplacian_eigenvalue(AxisTransform t, int j, int n, double rh2) {
  if (t == AxisTransform::walled) return walled_laplacian_eigenvalue(j, n, rh2);
  return periodic_laplacian_eigenvalue(j <= n / 2 ? j : n - j, n, rh2);
}

// What a forward and inverse transform multiply a line by: n (periodic), 2 n (walled).
BOUSS_HD inline double axis_transform_scale(AxisTransform t, int n) { return t == AxisTransform::walled ? 2.0 * n : n; }

// A real-to-real transform built from a real-to-complex FFT of the same length n (how the CUDA
// backend makes FFTW's R2HC and REDFT10, and their inverses HC2R and REDFT01, from cuFFT).
// The cosine transform is Makhoul's (1980): the line reordered, v_m = x_{2m} for the first
// ceil(n/2) and v_{n-1-m} = x_{2m+1}, its FFT V, then Y_k = 2 Re(exp(-i pi k / (2n)) V_k).
//
// Where the reordered line's m-th value comes from.
BOUSS_HD inline int cosine_reorder_source(int m, int n) { return m < (n + 1) / 2 ? 2 * m : 2 * (n - 1 - m) + 1; }
// Where x_i lands in the reordered line (the inverse of cosine_reorder_source).
BOUSS_HD inline int cosine_reorder_target(int i, int n) { return i % 2 == 0 ? i / 2 : n - 1 - (i - 1) / 2; }

// Value k of the real-to-real transform of a line whose real-to-complex FFT (n/2 + 1 values,
// c(m) gives value m) is c: DCT-II (walled) or the halfcomplex DFT (periodic).
template <class Get>
BOUSS_HD inline auto r2r_from_fft(AxisTransform t, int k, int n, const Get& c) -> decltype(c(0).re) {
  using S = decltype(c(0).re);
  if (t == AxisTransform::periodic) return k <= n / 2 ? c(k).re : c(n - k).im;
  constexpr double pi = 3.14159265358979323846264338327950;
  const bool low = k <= n / 2;
  const auto v = c(low ? k : n - k);
  const double re = double(v.re), im = low ? double(v.im) : -double(v.im);  // V_k = conj(V_{n-k})
  const double angle = pi * k / (2.0 * n);
  return S(2 * (cos(angle) * re + sin(angle) * im));
}

// Value k (0 .. n/2) of the complex line whose unnormalized complex-to-real FFT is the inverse
// of the real-to-real transform of the line x (x(m) gives value m): DCT-III (walled:
// exp(i pi k / (2n)) (X_k - i X_{n-k}), X_n = 0; the result then reordered back) or HC2R
// (periodic: the halfcomplex pairs).
template <class C, class Get>
BOUSS_HD inline C fft_from_r2r(AxisTransform t, int k, int n, const Get& x) {
  using S = decltype(C{}.re);
  if (t == AxisTransform::periodic) return C{x(k), k == 0 || 2 * k == n ? S(0) : x(n - k)};
  constexpr double pi = 3.14159265358979323846264338327950;
  const double a = double(x(k)), b = k == 0 ? 0.0 : double(x(n - k));
  const double angle = pi * k / (2.0 * n), cs = cos(angle), sn = sin(angle);
  return C{S(a * cs + b * sn), S(a * sn - b * cs)};
}

// The rows of one horizontal mode's vertical line: -d2/dz2 with the walls folded (line_row)
// plus the mode's -(horizontal eigenvalue) on the diagonal. The (0, 0) mode of a singular
// problem (Neumann walls) is pinned: its row 0 says x_0 = 0 (its solution fixed up to the
// constant, which the volume mean removal takes out).
template <class S>
struct FourierRows {
  ZView<S> z;
  int nz;
  S lambda;  // -(the horizontal eigenvalue), at least 0
  signed char lo, hi;
  bool pinned;
  BOUSS_HD TriRow<S> operator()(int k) const {
    if (pinned && k == 0) return {S(0), S(1), S(0)};
    return line_row(z, k, nz, lambda, lo, hi);
  }
};

}  // namespace bouss
