// The members of the multigrid driver (solver/multigrid/driver.hpp), for the units that
// instantiate it over their level operator (solver/multigrid/multigrid.cu, solver/multigrid/line_multigrid.cu).
#pragma once

#include "grid/field_ops.hpp"
#include "solver/multigrid/driver.hpp"
#include "solver/multigrid/hierarchy.hpp"

namespace bouss {

template <template <class> class Op, class Options, class R>
MultigridDriver<Op, Options, R>::MultigridDriver(const Backend& backend, const Grid& fine, const FieldBC& bc,
                                                 const Options& opt)
    : backend_(backend), grid_(fine), bc_(bc), opt_(opt) {
  if (cheaper_cycles(opt_))
    cheap_ = std::make_unique<Hierarchy<Op<float>>>(backend, fine, bc.homogeneous(), opt_, true);
  else
    direct_ = std::make_unique<Hierarchy<Op<R>>>(backend, fine, bc, opt_, false);
}

template <template <class> class Op, class Options, class R>
MultigridDriver<Op, Options, R>::~MultigridDriver() = default;

template <template <class> class Op, class Options, class R>
int MultigridDriver<Op, Options, R>::levels_on_the_ranks(const Grid& fine, const Options& opt) {
  return bouss::levels_on_the_ranks<Op<R>>(fine, opt);
}

template <template <class> class Op, class Options, class R>
double MultigridDriver<Op, Options, R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return Op<R>::residual_norm(grid_, backend_, opt_, x, b);
}

template <template <class> class Op, class Options, class R>
SolveStats MultigridDriver<Op, Options, R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const bool singular = Op<R>::singular(bc_, opt_);
  SolveStats stats;
  const double bnorm = Op<R>::rhs_norm(grid_, singular, b);
  if (bnorm == 0 && singular) {  // the solution is a constant: zero mean
    fill(x, 0);
    return SolveMonitor::constant_solution();
  }
  SolveMonitor monitor(stats, bnorm, tolerance);
  fill_ghosts(x, bc_, grid_);
  if (direct_) direct_->attach(x, b, false);
  monitor.record(measure(x, b));
  while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
    const bool fmg_start = opt_.fmg && stats.cycles == 0;
    cycle(x, b, fmg_start);
    stats.fmg = stats.fmg || fmg_start;
    ++stats.cycles;
    if (!monitor.record(measure(x, b))) break;
  }
  if (singular) {
    Op<R>::remove_mean(grid_, x);
    fill_ghosts(x, bc_, grid_);
  }
  monitor.finish();
  return stats;
}

template <template <class> class Op, class Options, class R>
double MultigridDriver<Op, Options, R>::measure(const Field<R>& x, const Field<R>& b) {
  if (direct_) return residual_norm(x, b);
  Op<R>::defect_into(grid_, opt_, x, b, cheap_->b0());
  return max_abs(cheap_->b0(), grid_.layout.interior(Stagger::centre));
}

template <template <class> class Op, class Options, class R>
void MultigridDriver<Op, Options, R>::cycle(Field<R>& x, Field<R>& b, bool fmg_start) {
  const Box interior = grid_.layout.interior(Stagger::centre);
  if (cheap_) {  // in float on the defect in cheap_'s level 0, the correction added to x
    if (fmg_start) {
      cheap_->fmg();
    } else {
      fill(cheap_->x0(), 0);
      cheap_->vcycle();
    }
    add_field(x, cheap_->x0(), interior);
    fill_ghosts(x, bc_, grid_);
  } else if (fmg_start) {  // FMG on the defect: x += FMG(A e = b - A x)
    if (!defect_.allocated()) {
      defect_ = Field<R>(backend_, grid_.layout, Stagger::centre, "mg defect");
      correction_ = Field<R>(backend_, grid_.layout, Stagger::centre, "mg correction");
      fill(defect_, 0);
      fill(correction_, 0);
    }
    Op<R>::defect_into(grid_, opt_, x, b, defect_);
    direct_->attach(correction_, defect_, true);
    direct_->fmg();
    add_field(x, correction_, interior);
    fill_ghosts(x, bc_, grid_);
    direct_->attach(x, b, false);
  } else {
    direct_->vcycle();
  }
}

template <template <class> class Op, class Options, class R>
void MultigridDriver<Op, Options, R>::cycles(Field<R>& x, Field<R>& b, int passes) {
  if (direct_) direct_->attach(x, b, false);
  for (int c = 0; c < passes; ++c) {
    if (cheap_) Op<R>::defect_into(grid_, opt_, x, b, cheap_->b0());
    cycle(x, b, false);
  }
}

}  // namespace bouss
