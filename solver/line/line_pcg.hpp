// Conjugate gradients preconditioned by exact vertical line solves (papers 000 and 002), for
// the pressure equation on flat and stretched grids and for the model problem of papers
// 000/001 (LinePcgOptions::shift). Matrix-free: the operator and the lines' tridiagonal
// systems are recomputed from the grid (solver/line/line_kernels.hpp), never stored.
//
// CG needs a symmetric operator: it iterates on A = -V L_0, L_0 the operator of the
// homogeneous problem and V the cells' thicknesses (the finite-volume form, symmetric on a
// stretched z), and the preconditioner M is A's vertical part: each column's tridiagonal
// system with the horizontal neighbours' diagonal, solved by the Thomas algorithm. A solve
// corrects the warm start x by the homogeneous problem of its residual, so walls with data
// (the pressure's Dirichlet or flux conditions) enter once, through the first residual.
//
// Two fused kernels an iteration (paper 000), each one thread per vertical column marching
// up it: (1) p = z + beta p fused with q = A p and the column's share of (p, q); (2)
// x += alpha p and r -= alpha q fused with the line solve z = M^-1 r and the shares of
// (r, z) and max|r / dz| (= max|b - L x|, the convergence measure of every pressure solver).
// The column shares are summed on the device (grid/reduce.hpp, CUB) into per-iteration
// slots that the next kernel reads, so alpha and beta never visit the host; the host reads
// the residuals every `check_every` iterations (one wait, not one per iteration), and the
// kernels queued past the iteration that met the tolerance see it on the device and return.
//
// No stall rule (SolveStats::stalled): CG's maximum residual plateaus for hundreds to over a
// thousand iterations on its way down where the problem is badly conditioned (windows of 50,
// 250 and 1000 iterations without a 10% fall stopped healthy solves of the model problem at
// nu_CFL >= 42 and of the 512x512x128 pressure box on the H200). A precision's floor shows
// instead where the recursion's residual meets the tolerance and the true one does not, after
// two restarts; else the solve runs to max_iterations.
//
// For the pressure equation (no shift) the condition number after line preconditioning
// grows like (horizontal cells)^2, so the iterations grow with the horizontal grid; the
// model problem's shift bounds it (paper 001 eq. 8). docs/performance.md has both.
#pragma once

#include <memory>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/ghost_self.hpp"
#include "solver/registry.hpp"

namespace bouss {

struct LinePcgOptions {
  int max_iterations = 1000;
  int check_every = 8;  // iterations between the host's reads of the residuals
  double shift = 0;  // solves lap x - shift x = b (see LineMultigridOptions::shift)
};

// The options the settings ask for: max_cycles times line_pcg_iterations_per_cycle
// iterations at most.
constexpr int line_pcg_iterations_per_cycle = 20;
LinePcgOptions line_pcg_options(const SolverSettings& s);

template <class R>
class LinePcg final : public PressureSolver<R> {
 public:
  LinePcg(const Backend& backend, const Grid& grid, const FieldBC& bc, LinePcgOptions opt = {});
  ~LinePcg() override;

  // solver/pressure_solver.hpp's contract; the iterations are CG iterations. Converged means
  // the true residual max|b - L x|, checked at the end, is within the tolerance (the
  // recursion's residual drifts from it; the iteration restarts from the true one, twice at
  // most, when they part).
  SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) override;
  double residual_norm(const Field<R>& x, const Field<R>& b) const override;
  double bytes_per_solve(const SolveStats& s) const override;

  // Bytes one iteration moves: kernel 1 reads z and p and writes p and q (4 values a cell);
  // kernel 2 reads x, p, r, q, writes x and r, writes c' and d' (= z) and reads them back,
  // writes z and reads r again for (r, z) (12): 16 values a cell, and the column shares.
  double bytes_per_iteration() const;
  // The useful bytes of an iteration by paper 001's Table 1 (optimal caching): 15 values a cell.
  double useful_bytes_per_iteration() const;
  // Bytes it allocates on the backend: six fields, the column shares and the iteration slots.
  static double estimate_memory(const Grid& grid, std::size_t value_bytes, int max_iterations);

 private:
  struct State;
  // r = V (L x - b) and z = M^-1 r, (r, z) and max|r / dz| reduced into `slot`.
  void start(const Field<R>& x, const Field<R>& b, int slot);
  // Iteration it: kernel 1 and (p, q) into slot it, kernel 2 and its reductions into slot
  // it + 1; the first after a start takes p = z; nothing once slot it's residual is at most
  // target.
  void iterate(Field<R>& x, int it, bool first, double target);
  // max|r / dz| of slots [from, to], to the host (waits for the device).
  std::vector<double> residuals(int from, int to) const;
  Backend backend_;
  Grid grid_;
  FieldBC bc_;
  LinePcgOptions opt_;
  GhostSelf<R> self_;  // the homogeneous problem's walls
  bool fills_ = false;  // a periodic horizontal axis of odd length: p's and z's ghosts filled
  std::unique_ptr<State> s_;
};

}  // namespace bouss
