#include "solver/multigrid/coarse_operator.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bouss {

CoarseOperator::CoarseOperator(const Grid& g, const FieldBC& bc) {
  const auto& n = g.layout.n;
  n_ = int(g.layout.cells());
  const std::size_t N = n_;
  std::vector<double> A(N * N, 0);  // A = -lap, symmetric positive (semi)definite
  auto cell = [&](int i, int j, int k) { return std::size_t(i) + n[0] * (std::size_t(j) + n[1] * std::size_t(k)); };
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const std::size_t p = cell(i, j, k);
        const int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          const double c = 1 / (g.h[a] * g.h[a]);
          A[p * N + p] += 2 * c;
          for (int side = 0; side < 2; ++side) {
            int q[3] = {ijk[0], ijk[1], ijk[2]};
            q[a] += side ? 1 : -1;
            if (q[a] >= 0 && q[a] < n[a]) {
              A[p * N + cell(q[0], q[1], q[2])] -= c;
              continue;
            }
            // Beyond the boundary: the ghost value the fill puts there.
            switch (bc.face[2 * a + side].kind) {
              case BoundaryKind::periodic:
                q[a] = (q[a] + n[a]) % n[a];
                A[p * N + cell(q[0], q[1], q[2])] -= c;
                break;
              default:  // a wall: ghost = self x_p + offset (grid/boundary.hpp cell_wall_ghost)
                A[p * N + p] -= c * cell_wall_ghost(bc.face[2 * a + side].kind, 0.0, 0.0, side).self;
                break;
            }
          }
        }
      }
  const bool singular = bc.singular();
  if (singular) {
    // Any c > 0 works; the interior stencil's diagonal keeps the scaling (and stays
    // positive where periodic wrap-around cancels the whole operator, as on one cell).
    double diag = 0;
    for (int a = 0; a < 3; ++a) diag += 2 / (g.h[a] * g.h[a]);
    for (auto& a : A) a += diag / n_;
  }
  for (std::size_t j = 0; j < N; ++j) {  // Cholesky, lower triangle in place
    double d = A[j * N + j];
    for (std::size_t k = 0; k < j; ++k) d -= A[j * N + k] * A[j * N + k];
    if (!(d > 0))
      throw std::runtime_error("multigrid coarse solve: the coarsest operator (" + std::to_string(n_) +
                               " cells) is not positive definite");
    const double l = std::sqrt(d);
    A[j * N + j] = l;
    for (std::size_t i = j + 1; i < N; ++i) {
      double s = A[i * N + j];
      for (std::size_t k = 0; k < j; ++k) s -= A[i * N + k] * A[j * N + k];
      A[i * N + j] = s / l;
    }
  }
  // Columns of A^{-1} by two triangular solves each; M = -A^{-1} (P for singular problems).
  m_.assign(N * N, 0);
  std::vector<double> y(N);
  for (std::size_t q = 0; q < N; ++q) {
    for (std::size_t i = 0; i < N; ++i) {
      double s = i == q ? 1 : 0;
      for (std::size_t k = 0; k < i; ++k) s -= A[i * N + k] * y[k];
      y[i] = s / A[i * N + i];
    }
    for (std::size_t i = N; i-- > 0;) {
      double s = y[i];
      for (std::size_t k = i + 1; k < N; ++k) s -= A[k * N + i] * y[k];
      y[i] = s / A[i * N + i];
    }
    for (std::size_t p = 0; p < N; ++p) m_[p * N + q] = -y[p];
  }
  if (singular) {  // M P with P = I - 1 1^T / N: the right-hand side's mean is ignored
    for (std::size_t p = 0; p < N; ++p) {
      double mean = 0;
      for (std::size_t q = 0; q < N; ++q) mean += m_[p * N + q];
      mean /= double(N);
      for (std::size_t q = 0; q < N; ++q) m_[p * N + q] -= mean;
    }
  }
}

}  // namespace bouss
