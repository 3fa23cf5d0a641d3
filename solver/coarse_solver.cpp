#include "solver/coarse_solver.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bouss {

CoarseSolver::CoarseSolver(const Grid& g, const FieldBC& bc) : grid_(g), singular_(bc.singular()) {
  const auto& n = g.layout.n;
  n_ = int(g.layout.cells());
  std::vector<Real> A(std::size_t(n_) * n_, 0);  // A = -lap, symmetric positive (semi)definite
  auto cell = [&](int i, int j, int k) { return i + n[0] * (j + n[1] * k); };
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const int p = cell(i, j, k);
        const int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          const Real c = 1 / (g.h[a] * g.h[a]);
          A[std::size_t(p) * n_ + p] += 2 * c;
          for (int side = 0; side < 2; ++side) {
            int q[3] = {ijk[0], ijk[1], ijk[2]};
            q[a] += side ? 1 : -1;
            if (q[a] >= 0 && q[a] < n[a]) {
              A[std::size_t(p) * n_ + cell(q[0], q[1], q[2])] -= c;
              continue;
            }
            // Beyond the boundary: the ghost value the fill would put there.
            switch (bc.face[2 * a + side].kind) {
              case BoundaryKind::periodic:
                q[a] = (q[a] + n[a]) % n[a];
                A[std::size_t(p) * n_ + cell(q[0], q[1], q[2])] -= c;
                break;
              case BoundaryKind::value: A[std::size_t(p) * n_ + p] += c; break;      // ghost = -x_p
              case BoundaryKind::gradient: A[std::size_t(p) * n_ + p] -= c; break;   // ghost = x_p
            }
          }
        }
      }
  if (singular_) {
    // Any c > 0 works; the interior stencil's diagonal keeps the scaling (and stays
    // positive where periodic wrap-around cancels the whole operator, as on one cell).
    Real diag = 0;
    for (int a = 0; a < 3; ++a) diag += 2 / (g.h[a] * g.h[a]);
    const Real shift = diag / n_;
    for (auto& a : A) a += shift;
  }
  // In-place Cholesky, lower triangle.
  for (int j = 0; j < n_; ++j) {
    Real d = A[std::size_t(j) * n_ + j];
    for (int k = 0; k < j; ++k) d -= A[std::size_t(j) * n_ + k] * A[std::size_t(j) * n_ + k];
    if (!(d > 0))
      throw std::runtime_error("multigrid coarse solve: the coarsest operator (" + std::to_string(n_) +
                               " cells) is not positive definite");
    const Real l = std::sqrt(d);
    A[std::size_t(j) * n_ + j] = l;
    for (int i = j + 1; i < n_; ++i) {
      Real s = A[std::size_t(i) * n_ + j];
      for (int k = 0; k < j; ++k) s -= A[std::size_t(i) * n_ + k] * A[std::size_t(j) * n_ + k];
      A[std::size_t(i) * n_ + j] = s / l;
    }
  }
  chol_ = std::move(A);
}

void CoarseSolver::solve(const Real* b, Real* x) const {
  const Layout& L = grid_.layout;
  const auto& n = L.n;
  std::vector<Real> y(n_);
  int p = 0;
  Real mean = 0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) mean += (y[p++] = -b[L.origin + L.index(i, j, k)]);
  mean /= n_;
  if (singular_)
    for (auto& v : y) v -= mean;  // the compatible part of the right-hand side
  for (int i = 0; i < n_; ++i) {  // forward: L y = rhs
    Real s = y[i];
    for (int k = 0; k < i; ++k) s -= chol_[std::size_t(i) * n_ + k] * y[k];
    y[i] = s / chol_[std::size_t(i) * n_ + i];
  }
  for (int i = n_ - 1; i >= 0; --i) {  // backward: L^T x = y
    Real s = y[i];
    for (int k = i + 1; k < n_; ++k) s -= chol_[std::size_t(k) * n_ + i] * y[k];
    y[i] = s / chol_[std::size_t(i) * n_ + i];
  }
  p = 0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) x[L.origin + L.index(i, j, k)] = y[p++];
}

}  // namespace bouss
