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

// Makhoul's (1980) reordering of a walled line for its cosine transform through a real FFT
// (solver/direct/cosine_kernels.hpp): v_m = x_{2m} for the first ceil(n/2), v_{n-1-m} = x_{2m+1}.
// Where the reordered line's m-th value comes from.
BOUSS_HD inline int cosine_reorder_source(int m, int n) { return m < (n + 1) / 2 ? 2 * m : 2 * (n - 1 - m) + 1; }
// Where x_i lands in the reordered line (the inverse of cosine_reorder_source).
BOUSS_HD inline int cosine_reorder_target(int i, int n) { return i % 2 == 0 ? i / 2 : n - 1 - (i - 1) / 2; }

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
