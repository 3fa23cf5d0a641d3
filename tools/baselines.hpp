// Poisson baselines from CUDA's own libraries, for `bouss bench poisson`:
//   fft     cuFFT direct solve of the fully periodic problem (the same 7-point operator,
//           diagonal in Fourier space): the fastest thing possible for that special case;
//   csr_cg  conjugate gradients on the explicit CSR matrix with cuSPARSE SpMV and cuBLAS
//           vector operations: the matrix-explicit approach of paper 000.
// Available in CUDA builds only (baselines_available() says).
#pragma once

#include <string>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"

namespace bouss {

struct BaselineRun {
  int iterations = 0;
  std::vector<double> residual_history;  // the solver's own measure (2-norm for CG), relative
  double ms = 0;                          // median of the timed repeats
  double bytes = 0;                       // traffic model of one solve
};

bool baselines_available();
// b on the CUDA backend, mean-free; x receives the solution (ghosts not filled).
BaselineRun fft_poisson(const Grid& g, const Field<double>& b, Field<double>& x, int repeats);
BaselineRun csr_cg_poisson(const Grid& g, const FieldBC& bc, const Field<double>& b, Field<double>& x, double tolerance,
                           int max_iterations, int repeats);

}  // namespace bouss
