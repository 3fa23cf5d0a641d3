// The one multigrid driver: a pressure solver (solver/pressure_solver.hpp) over a hierarchy
// of levels (solver/multigrid/hierarchy.hpp) whose level operator Op<S> (S the levels'
// precision) supplies the smoother, the coarsening, the transfers and the coarsest solve.
// The driver owns the solve: the residual checks (SolveMonitor), an optional FMG start on the
// defect of the initial guess, V-cycles to the tolerance, and in a double run with
// mixed_precision the V-cycles in float on the defect inside defect correction in double.
// Multigrid<R> (solver/multigrid/multigrid.hpp) and LineMultigrid<R> (solver/multigrid/line_multigrid.hpp) are
// its two operators' solvers; the units that define an operator instantiate the driver
// (solver/multigrid/driver_impl.hpp).
#pragma once

#include <memory>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/pressure_solver.hpp"

namespace bouss {

template <class Op>
class Hierarchy;

template <template <class> class Op, class Options, class R>
class MultigridDriver : public PressureSolver<R> {
 public:
  MultigridDriver(const Backend& backend, const Grid& fine, const FieldBC& bc, const Options& opt = {});
  ~MultigridDriver() override;

  // solver/pressure_solver.hpp's contract; the iterations are V-cycles (and the FMG start).
  SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) override;
  double residual_norm(const Field<R>& x, const Field<R>& b) const override;

  // How many of its levels, finest first, stay cut over the ranks of a grid cut over several
  // (the rest gathered onto rank 0); all of them on a whole grid.
  static int levels_on_the_ranks(const Grid& fine, const Options& opt);

 protected:
  // Cycles in a precision cheaper than R: a double run with mixed_precision.
  static bool cheaper_cycles(const Options& o) { return sizeof(R) > sizeof(float) && o.mixed_precision; }
  // `passes` V-cycles on x with no residual measured (x's ghosts filled before): the cycles
  // of a checked solve without FMG, the same kernels in the same order.
  void cycles(Field<R>& x, Field<R>& b, int passes);

  Backend backend_;
  Grid grid_;
  FieldBC bc_;
  Options opt_;
  std::unique_ptr<Hierarchy<Op<R>>> direct_;     // cycles on x and b themselves
  std::unique_ptr<Hierarchy<Op<float>>> cheap_;  // cycles on the defect in float

 private:
  Field<R> defect_, correction_;  // FMG on the defect in R
  // The residual check: max|b - A x|, or in float cycles max|defect| (left in cheap_'s
  // level 0 for the next cycle).
  double measure(const Field<R>& x, const Field<R>& b);
  // One cycle on x (level 0 of direct_ attached to x and b): a V-cycle, or the FMG start on
  // the defect; in float cycles on the defect in cheap_'s level 0, the correction added to x.
  void cycle(Field<R>& x, Field<R>& b, bool fmg_start);
};

}  // namespace bouss
