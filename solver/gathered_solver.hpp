// The pressure solve of a grid cut over ranks, done whole on rank 0: b and the warm start x
// gathered there (grid/gather.hpp), solved by the solver the case names on the whole
// grid, on rank 0's backend alone, then x scattered back, its ghosts exchanged, and the
// solve's statistics broadcast. It gives the iterates of one rank on any decomposition, and
// it does not scale: rank 0 holds and solves the whole grid while the others wait. The
// solvers work on the blocks (SolverType::solves_on_blocks, solver/registry.hpp); this is what is
// left where they cannot: fft on fewer z levels or y rows than ranks, a multigrid grid
// without a coarser level. (The multigrids' own coarse levels are gathered the same way.)
#pragma once

#include <memory>

#include "solver/registry.hpp"

namespace bouss {

template <class R>
class GatheredSolver : public PressureSolver<R> {
 public:
  // `type` built on the whole grid with settings `s` (on rank 0).
  GatheredSolver(const SolverType& type, const SolverSettings& s, const Backend& backend, const Grid& part,
                 const FieldBC& bc);
  SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) override;
  double residual_norm(const Field<R>& x, const Field<R>& b) const override;
  double bytes_per_solve(const SolveStats& s) const override;

 private:
  static constexpr int root = 0;
  Backend backend_;
  Grid part_, whole_;
  FieldBC bc_part_;
  // On rank 0 alone: the whole grid's solver and its x and b.
  std::unique_ptr<PressureSolver<R>> solver_;
  mutable Field<R> x_, b_;
  void gather(const Field<R>& f, Field<R>& whole) const;
};

}  // namespace bouss
