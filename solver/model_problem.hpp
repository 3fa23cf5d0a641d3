// The model problem of papers 000 and 001 (paper 001, section 2.1.1), in a flat box:
//   -omega^2 (lap_h u + lambda^2 d2u/dz2) + u = f   in [0, 1] x [0, 1] x [0, H],
// cell-centred finite volumes on nx x ny x nz cells (h = 1/nx, 1/ny horizontally), homogeneous
// Dirichlet conditions at the sides (or periodic ones, the option) and homogeneous Neumann
// at the top and bottom, with omega and lambda from the horizontal CFL number nu_CFL:
//   omega = nu_CFL h / 2   (paper 001 eq. 5; h the coarser horizontal spacing),
//   lambda = 1             (its limit as h -> 0).
// It is symmetric positive definite; after vertical line preconditioning its condition number
// is about 1 + 8 omega^2 / h^2 = 1 + 2 nu_CFL^2 whatever the grid (paper 001 eq. 8), so CG's
// iterations stay bounded as the horizontal grid grows, unlike for the pressure equation.
//
// The line solvers take it as lap_h u + d2u/dz'2 - shift u = b on z' = z / lambda, with
// shift = 1 / omega^2 and b = -f / omega^2 (solver/line/line_kernels.hpp).
#pragma once

#include <array>
#include <cstddef>

#include "grid/boundary.hpp"
#include "grid/grid.hpp"

namespace bouss {

struct ModelProblem {
  std::array<int, 3> n{};
  double cfl = 8.4;          // nu_CFL (paper 001 uses 8.4; its Figure 2 sweeps 0.84 .. 840)
  double depth = 0.01;       // H, in units of the horizontal extent (a thin shell: H << 1)
  bool periodic = false;     // periodic sides instead of Dirichlet ones
  double stretching = 0;     // tanh stretching of z towards both ends (0: uniform)

  double h() const;          // the coarser horizontal spacing
  double omega() const { return 0.5 * cfl * h(); }
  double lambda() const { return 1.0; }
  double shift() const { return 1 / (omega() * omega()); }
  double rhs_scale() const { return -1 / (omega() * omega()); }  // b = rhs_scale f
  // The grid the line solvers see (z scaled by 1 / lambda), values of elem bytes.
  Grid grid(std::size_t elem) const;
  FieldBC conditions() const;
};

}  // namespace bouss
