// The eigenbasis of one horizontal axis's second difference, for the direct solve of a grid
// whose axis is stretched (Costa, Palancha, Romero, Verzicco & Fatica 2026, arXiv 2603.09528:
// a stretched axis diagonalized numerically, its transforms applied as matrix products).
//
// Along an axis of n cells with faces x_0 < ... < x_n (widths dx_i, centre distances dxc_i
// across the inner faces), the finite-volume second difference of the pressure's homogeneous
// Neumann walls (or of a periodic axis, across the face x_0 = x_n too) is
//   (A p)_i = [(p_{i+1} - p_i) / dxc_{i+1} - (p_i - p_{i-1}) / dxc_i] / dx_i,
// A = D^-1 L with D = diag(dx) and L symmetric. S = D^-1/2 L D^-1/2 is symmetric (tridiagonal
// between walls, cyclic when periodic): LAPACK gives S = Q Lambda Q^T once, at set-up, in
// double, and then
//   A = V Lambda V^-1,  V = D^-1/2 Q (the inverse transform),  V^-1 = Q^T D^1/2 (the forward).
// On a uniform walled axis the eigenvalues are the cosine modes' (2 cos(pi k / n) - 2) / h^2
// in the same order; on a uniform periodic one the Fourier modes', in the order LAPACK finds.
#pragma once

#include <vector>

#include "solver/direct/fourier_kernels.hpp"

namespace bouss {

struct AxisEigenbasis {
  int n = 0;
  // Descending: [0] is exactly 0 (the constant mode, whose forward row is dx_i / sqrt(L):
  // the axis integral over sqrt(L)), the others negative.
  std::vector<double> eigenvalues;
  // Column-major n x n: the forward transform p^_m = sum_i forward[m + n i] p_i, the
  // inverse p_i = sum_m inverse[i + n m] p^_m; inverse times forward is the identity.
  std::vector<double> forward, inverse;
};

// The eigenbasis of the axis with these n + 1 faces (increasing), walled (Neumann) or
// periodic. Throws std::invalid_argument for fewer than two faces or faces that do not
// increase, std::runtime_error when LAPACK fails.
AxisEigenbasis axis_eigenbasis(const std::vector<double>& faces, AxisTransform kind);

// The second difference A above as a dense column-major n x n matrix (the tests' reference).
std::vector<double> axis_second_difference(const std::vector<double>& faces, AxisTransform kind);

}  // namespace bouss
