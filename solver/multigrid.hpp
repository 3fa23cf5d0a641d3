// Geometric multigrid for the cell-centred Poisson problem lap(x) = b (paper 004):
// red-black Gauss-Seidel point smoothing, restriction by averaging the children,
// trilinear (cell-centred) prolongation, V-cycles to a relative residual tolerance.
// Each axis whose cell count is even is halved per level (grid/coarsening.hpp); the
// coarsest level is solved directly on the host. Levels at or below a cell-count
// threshold run on the CPU even when the fine grid is on the GPU: only the restricted
// residual goes down and the coarse correction comes back.
#pragma once

#include <memory>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/coarse_solver.hpp"

namespace bouss {

struct MultigridOptions {
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int max_cycles = 50;
  Real omega = 1.25;  // over-relaxation of the red-black smoother (measured best in 3D: 0.02-0.03 per V(2,2))
  long cpu_coarse_cells = 32768;  // levels with at most this many cells run on the host
};

struct SolveStats {
  int cycles = 0;
  bool converged = false;
  std::vector<Real> residual_history;  // max|b - lap x| / max|b|, before each cycle and after the last
};

class Multigrid {
 public:
  Multigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, MultigridOptions opt = {});
  ~Multigrid();

  // Solves lap(x) = b to max|b - lap x| <= tolerance * max|b|, starting from x (warm start).
  // For singular problems (no value condition) the mean of b is removed first (b is
  // changed) and the mean of x afterwards. x's ghosts are filled on return.
  SolveStats solve(Field<Real>& x, Field<Real>& b, Real tolerance);

  // max |b - lap x| over the interior (x's ghosts must be filled).
  Real residual_norm(const Field<Real>& x, const Field<Real>& b) const;

  int levels() const { return int(levels_.size()); }
  const Grid& level_grid(int l) const;
  bool level_on_host(int l) const;
  const MultigridOptions& options() const { return opt_; }

 private:
  struct Level;
  void vcycle(int l);
  void smooth(Level& L, int sweeps);
  void coarse_solve(Level& L);

  Backend backend_;
  FieldBC bc_, hom_;
  MultigridOptions opt_;
  std::vector<std::unique_ptr<Level>> levels_;
  CoarseSolver coarse_;
};

}  // namespace bouss
