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
