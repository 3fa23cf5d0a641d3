// Tensor-product multigrid (paper 001, Algorithm 1) for the pressure equation on flat and
// stretched grids: the levels halve x and y only (semicoarsening), z is never coarsened, so
// a stretched z carries to every level unchanged; the smoother relaxes whole vertical lines
// at once (zebra: the columns with (i + j) even, then odd, each line solved exactly by the
// Thomas algorithm, solver/line/tridiagonal_kernels.hpp). Where the vertical spacing is much
// finer than the horizontal, the point smoother of solver/multigrid/multigrid.hpp leaves the strongly
// coupled vertical error untouched and its cycles stall; line relaxation removes it.
//
// The coarsest level keeps at least two columns along each horizontal axis that has more
// than one cell (so every line's system is nonsingular, walls or not) and is solved by
// `coarsest_sweeps` zebra sweeps, not by a dense inverse. Axes that cannot be halved further
// (odd sizes) stop coarsening there, as the point multigrid's do. The driver is the point
// multigrid's (solver/multigrid/driver.hpp) with another level operator, LineRelaxation
// (solver/multigrid/line_multigrid.cu).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/multigrid/driver.hpp"
#include "solver/registry.hpp"

namespace bouss {

struct LineMultigridOptions {
  int pre_sweeps = 2;   // zebra sweeps before the coarse correction (pressure.pre_sweeps)
  // Under several ranks, a level stays cut over them while every rank's block keeps at least
  // this many columns along each cut axis; the coarser levels are gathered onto rank 0
  // (pressure.agglomerate_below).
  int agglomerate_below = default_agglomerate_below;
  int post_sweeps = 2;  // and after (pressure.post_sweeps)
  int max_cycles = 50;
  double omega = 1.0;  // relaxation of each line towards its exact solution (1: zebra line Gauss-Seidel)
  int coarsest_sweeps = 8;
  // Each V-cycle's device launches replayed as CUDA graphs (pressure.cuda_graphs): the whole
  // cycle on one rank; under several ranks, with NCCL's messages, the levels on the blocks.
  bool cuda_graphs = true;
  // Solves lap x - shift x = b (the model problem of tools/elliptic_bench.cpp; nonsingular for
  // shift > 0, so no mean is removed); 0 for the pressure equation.
  double shift = 0;
  // The driver's options (solver/multigrid/driver.hpp) that the line multigrid does not take:
  // no FMG start, no cycles in another precision.
  static constexpr bool fmg = false, mixed_precision = false;
};

// The stencil of the line operator on `grid` (solver/line/line_kernels.hpp), its z tables on
// `backend`, with the model problem's shift (0: the pressure equation).
template <class R>
LineStencil<R> make_line_stencil(const Grid& g, const Backend& backend, double shift = 0) {
  LineStencil<R> st{};
  for (int a = 0; a < 3; ++a) {
    st.s[a] = g.layout.stride(a);
    st.n[a] = g.layout.n[a];
  }
  st.rx2 = R(1 / (g.h[0] * g.h[0]));
  st.ry2 = R(1 / (g.h[1] * g.h[1]));
  st.shift = R(shift);
  st.z = g.z_view<R>(backend);
  return st;
}

// The options the settings ask for.
LineMultigridOptions line_multigrid_options(const SolverSettings& s);

// The start of a line solve: for a singular problem (no value condition, no shift) b's
// volume mean removed (b is changed), then max|b|; `constant` when that is 0 for a singular
// problem, whose solution is then the constant 0 (x is set to it).
struct LineSolveStart {
  double bnorm = 0;
  bool singular = false, constant = false;
};
template <class R>
LineSolveStart start_line_solve(const Grid& g, const FieldBC& bc, double shift, Field<R>& x, Field<R>& b);

// max |b - b_offset - L x| over the interior for the line operator with `shift` (x's ghosts
// filled): the convergence measure of the line solvers. b_offset: a value in the backend's
// memory subtracted from b (a mean the solver took out without writing b), or null.
template <class R>
double line_residual_norm(const Grid& g, const Backend& backend, double shift, const Field<R>& x, const Field<R>& b,
                          const double* b_offset = nullptr);
// The same with max |b - b_offset| from the same pass (a solve's scale and its residual).
struct ResidualNorms {
  double residual = 0, rhs = 0;
};
template <class R>
ResidualNorms line_residual_norms(const Grid& g, const Backend& backend, double shift, const Field<R>& x,
                                  const Field<R>& b, const double* b_offset = nullptr);

// r = b - b_offset - L x over the interior (x's ghosts filled; b_offset a value in the
// backend's memory, or null): the residual the Fourier solver's refinement solves for and
// the line multigrid gathers below its levels on the ranks.
template <class R>
void line_residual_into(const Grid& g, const Backend& backend, double shift, const Field<R>& x, const Field<R>& b,
                        const double* b_offset, Field<R>& r);
// The horizontal shapes of the levels, finest first (z as given).
std::vector<std::array<int, 3>> line_multigrid_levels(const std::array<int, 3>& n);

template <class S>
class LineRelaxation;  // the level operator (solver/multigrid/line_multigrid.cu)

template <class R>
class LineMultigrid final : public MultigridDriver<LineRelaxation, LineMultigridOptions, R> {
 public:
  using MultigridDriver<LineRelaxation, LineMultigridOptions, R>::MultigridDriver;

  // solver/pressure_solver.hpp's contract, from the driver; the iterations are V-cycles. On a
  // stretched grid the means removed are volume means (the singular problem's compatibility
  // condition).
  double bytes_per_solve(const SolveStats& s) const override;

  // Bytes one V-cycle moves (each array counted once per pass that reads or writes it), with
  // the convergence check after it.
  double bytes_per_cycle() const;
  // Bytes it allocates on the backend for a grid laid out as `fine` (this rank's: a block's
  // levels, and on rank 0 the levels gathered below them).
  static double estimate_memory(const Grid& fine, std::size_t value_bytes, const LineMultigridOptions& opt = {});
};

}  // namespace bouss
