// Direct solve of the coarsest multigrid level (paper 004, "Run small problems on the
// CPU", taken one step further): the 7-point Laplacian with the level's homogeneous
// conditions is assembled densely, factored once (Cholesky) and inverted, so that every
// coarse solve is one matrix-vector product e = M r, on the host or as one GPU kernel
// (which a CUDA graph can capture). Singular problems (periodic/Neumann only) are made
// definite with c 1 1^T and M projects out the mean: e is the mean-free solution of
// lap(e) = r - mean(r).
#pragma once

#include <vector>

#include "grid/boundary.hpp"
#include "grid/grid.hpp"

namespace bouss {

class CoarseOperator {
 public:
  CoarseOperator() = default;
  CoarseOperator(const Grid& g, const FieldBC& bc);
  int unknowns() const { return n_; }
  // Row-major n x n: e_p = sum_q M[p n + q] r_q, cells numbered i + nx (j + ny k).
  const std::vector<double>& inverse() const { return m_; }

 private:
  int n_ = 0;
  std::vector<double> m_;
};

}  // namespace bouss
