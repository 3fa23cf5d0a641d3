// Baselines from CUDA's own libraries, for `bouss bench poisson` and `bouss bench elliptic`:
//   fft     cuFFT direct solve of the fully periodic problem (the same 7-point operator,
//           diagonal in Fourier space): the fastest thing possible for that special case;
//   csr_cg  conjugate gradients on the explicit CSR matrix with cuSPARSE SpMV and cuBLAS
//           vector operations, optionally preconditioned by the vertical lines (cuSPARSE's
//           gtsvInterleavedBatch): the matrix-explicit approach of paper 000.
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
struct CsrCgOptions {
  double shift = 0;                  // solves lap x - shift x = b (the model problem's; 0: Poisson)
  bool line_preconditioner = false;  // M: each column's tridiagonal part of A
  double tolerance = 1e-8;           // on the 2-norm of the residual, relative
  int max_iterations = 20000;
  int repeats = 5;
};
// b on the CUDA backend (mean-free for a singular problem); x receives the solution (ghosts
// not filled). A uniform grid with at least 3 cells on each axis. The host reads each
// iteration's scalars (cuBLAS's default), as a library-built CG does.
BaselineRun csr_cg(const Grid& g, const FieldBC& bc, const CsrCgOptions& o, const Field<double>& b, Field<double>& x);
// cuSPARSE's batched tridiagonal solvers on the vertical lines of `layout` (rows a, b, c per
// level, the same in every column, given to cuSPARSE as full per-system arrays, as it needs
// them): gtsv2StridedBatch (each system contiguous) or gtsvInterleavedBatch (algorithm 0,
// element k of every system together: bouss's x-fastest order). r and x on the CUDA backend;
// the time is the library call alone (the copies into its in-place arrays, r and, for the
// interleaved solver, which factors in place, the coefficients, timed apart and subtracted); bytes: r, x and the three coefficient arrays once each.
BaselineRun gtsv_baseline(const Layout& layout, const std::vector<double>& a, const std::vector<double>& b,
                          const std::vector<double>& c, const Field<double>& r, Field<double>& x, bool interleaved,
                          int repeats);

}  // namespace bouss
