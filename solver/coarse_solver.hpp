// Direct solve of the coarsest multigrid level on the host (paper 004, "Run small problems
// on the CPU"): the 7-point Laplacian with the level's homogeneous boundary conditions
// assembled densely and factored once (Cholesky). Singular problems (periodic/Neumann only)
// are made definite by adding c 1 1^T, which for a mean-free right-hand side returns the
// mean-free solution.
#pragma once

#include <vector>

#include "grid/boundary.hpp"
#include "grid/grid.hpp"

namespace bouss {

class CoarseSolver {
 public:
  CoarseSolver() = default;
  CoarseSolver(const Grid& g, const FieldBC& bc);
  // lap(x) = b on the cell interior of padded host arrays laid out by the grid's layout.
  // Ghosts of x are left for the caller to fill.
  void solve(const Real* b, Real* x) const;
  int unknowns() const { return n_; }

 private:
  Grid grid_;
  bool singular_ = false;
  int n_ = 0;
  std::vector<Real> chol_;  // lower triangle of the factor, row-major n x n
};

}  // namespace bouss
