// The members of the multigrid driver (solver/multigrid/driver.hpp), for the units that
// instantiate it over their level operator (solver/multigrid.cu, solver/line_multigrid.cu).
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
int MultigridDriver<Op, Options, R>::levels() const {
  return direct_ ? direct_->levels() : cheap_->levels();
}
template <template <class> class Op, class Options, class R>
const Grid& MultigridDriver<Op, Options, R>::level_grid(int l) const {
  return direct_ ? direct_->level(l).grid : cheap_->level(l).grid;
}
template <template <class> class Op, class Options, class R>
bool MultigridDriver<Op, Options, R>::level_on_host(int l) const {
  return !(direct_ ? direct_->level(l).backend : cheap_->level(l).backend).is_cuda();
}

template <template <class> class Op, class Options, class R>
double MultigridDriver<Op, Options, R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return Op<R>::residual_norm(grid_, backend_, opt_, x, b);
}

template <template <class> class Op, class Options, class R>
SolveStats MultigridDriver<Op, Options, R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const Box interior = grid_.layout.interior(Stagger::centre);
  const bool singular = Op<R>::singular(bc_, opt_);
  SolveStats stats;
  const double bnorm = Op<R>::rhs_norm(grid_, singular, b);
  if (bnorm == 0 && singular) {  // the solution is a constant: zero mean
    fill(x, 0);
    return SolveMonitor::constant_solution();
  }
  SolveMonitor monitor(stats, bnorm, tolerance);
  fill_ghosts(x, bc_, grid_);
  if (direct_) {
    monitor.record(residual_norm(x, b));
    if (opt_.fmg && monitor.above_target()) {  // FMG on the defect: x += FMG(A e = b - A x)
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
      stats.fmg = true;
      ++stats.cycles;
      monitor.record(residual_norm(x, b));
    }
    direct_->attach(x, b, false);
    while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
      direct_->vcycle();
      ++stats.cycles;
      if (!monitor.record(residual_norm(x, b))) break;
    }
  } else {  // float cycles on the defect, defect and correction in R
    Hierarchy<Op<float>>& H = *cheap_;
    Op<R>::defect_into(grid_, opt_, x, b, H.b0());
    monitor.record(max_abs(H.b0(), interior));
    while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
      const bool fmg_start = opt_.fmg && stats.cycles == 0;
      correct_from_defect(x, fmg_start);
      stats.fmg = stats.fmg || fmg_start;
      ++stats.cycles;
      Op<R>::defect_into(grid_, opt_, x, b, H.b0());
      if (!monitor.record(max_abs(H.b0(), interior))) break;
    }
  }
  if (singular) {
    Op<R>::remove_mean(grid_, x);
    fill_ghosts(x, bc_, grid_);
  }
  monitor.finish();
  return stats;
}

template <template <class> class Op, class Options, class R>
void MultigridDriver<Op, Options, R>::cycles(Field<R>& x, Field<R>& b, int passes) {
  if (direct_) {
    direct_->attach(x, b, false);
    for (int c = 0; c < passes; ++c) direct_->vcycle();
    return;
  }
  for (int c = 0; c < passes; ++c) {
    Op<R>::defect_into(grid_, opt_, x, b, cheap_->b0());
    correct_from_defect(x, false);
  }
}

template <template <class> class Op, class Options, class R>
void MultigridDriver<Op, Options, R>::correct_from_defect(Field<R>& x, bool fmg_start) {
  Hierarchy<Op<float>>& H = *cheap_;
  if (fmg_start) {
    H.fmg();
  } else {
    fill(H.x0(), 0);
    H.vcycle();
  }
  add_field(x, H.x0(), grid_.layout.interior(Stagger::centre));
  fill_ghosts(x, bc_, grid_);
}

}  // namespace bouss
