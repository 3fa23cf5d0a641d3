// The pressure equation's solvers behind one interface (the seam of the line-solver issue):
// the step asks for lap(x) = b to a relative tolerance and gets back what the solve did;
// which solver does it is the registry's (solver/registry.hpp) to say. Every solver measures convergence
// the same way, max|b - lap x| <= tolerance * max|b| over the interior, warm-starts from x,
// removes the mean of b first (b is changed) and of x afterwards for a singular problem (no
// value condition; volume means on a stretched grid), and leaves x's ghosts filled. The
// solvers: the geometric multigrid with point smoothing (solver/multigrid/multigrid.hpp) and the
// tensor-product multigrid with vertical line smoothing (solver/multigrid/line_multigrid.hpp), CG
// preconditioned by the vertical lines (solver/line/line_pcg.hpp), and the direct
// Fourier-tridiagonal solve (solver/direct/fourier_solver.hpp).
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"

namespace bouss {

struct SolveStats {
  int cycles = 0;     // iterations (V-cycles), plus one for the FMG start when it ran
  bool fmg = false;   // the solve started with FMG
  bool converged = false;
  // The residual stopped falling before the tolerance, the mark of the precision's round-off
  // floor: two iterations in a row that each left more than stall_ratio of the residual
  // before it (a multigrid that converges gains a factor of 5-20 an iteration). The solve
  // ends there, unconverged. CG has no such rule (its maximum residual plateaus for
  // hundreds of iterations on its way down: solver/line/line_pcg.hpp); the direct Fourier solve
  // sets it when its refinements leave the residual above the tolerance.
  bool stalled = false;
  static constexpr double stall_ratio = 0.9;
  std::vector<double> residual_history;  // max|b - lap x| / max|b|: initial, then after each iteration
  // False for a solve of fixed passes (PressureSolver::solve_passes), which measures no
  // residual: converged is then the last checked solve's word, and the history is empty.
  bool checked = true;
  static SolveStats unchecked(int passes) {
    SolveStats s;
    s.cycles = passes;
    s.converged = true;
    s.checked = false;
    return s;
  }
};

// The convergence bookkeeping every solver shares: residuals recorded relative to max|b|
// (scale; 1 for b = 0), the tolerance's target, and the stall rule (SolveStats::stalled).
class SolveMonitor {
 public:
  // stall_rule: whether SolveStats::stalled's rule stops the solve.
  SolveMonitor(SolveStats& stats, double bnorm, double tolerance, bool stall_rule = true)
      : stats_(stats), scale_(bnorm > 0 ? bnorm : 1.0), target_(tolerance * scale_), stall_rule_(stall_rule) {}
  // Records max|b - lap x| after an iteration (or the initial one); false when the solve
  // must stop short: a non-finite residual, or a stall.
  bool record(double r) {
    if (!stats_.residual_history.empty()) slow_ = r > SolveStats::stall_ratio * rn_ ? slow_ + 1 : 0;
    rn_ = r;
    stats_.residual_history.push_back(r / scale_);
    stats_.stalled = stall_rule_ && slow_ >= 2 && r > target_;
    return std::isfinite(r) && !stats_.stalled;
  }
  bool above_target() const { return rn_ > target_; }
  // Sets stats.converged at the end of the solve.
  void finish() { stats_.converged = rn_ <= target_; }
  // What a singular solve whose b is zero after the mean removal returns (x is set to 0: the
  // constant with zero mean).
  static SolveStats constant_solution() {
    SolveStats s;
    s.converged = true;
    s.residual_history.push_back(0);
    return s;
  }

 private:
  SolveStats& stats_;
  double scale_, target_;
  bool stall_rule_;
  double rn_ = 0;
  int slow_ = 0;  // iterations in a row that each left more than stall_ratio of the residual
};

// Traffic of an iterative solve around its iterations, in arrays of the grid: b's mean and
// max|b| read (1), b -= mean (2), x's mean read and x -= mean afterwards (3). The direct
// Fourier solve takes both means inside its (0, 0) line instead.
constexpr double mean_removal_arrays = 6;

// Arrays of the solve's layout that a caller lends for the duration of one solve (their
// values are destroyed): the time step lends its next state's fields, free between the
// projection and the next Adams-Bashforth step, so that a solver needs no work arrays of
// its own there. Null entries lend nothing.
template <class R>
struct LentArrays {
  static constexpr int capacity = 3;
  std::array<Field<R>*, capacity> fields{};
  bool complete() const {
    for (const Field<R>* f : fields)
      if (!f) return false;
    return true;
  }
};

template <class R>
class PressureSolver {
 public:
  virtual ~PressureSolver() = default;
  // Solves lap(x) = b (above for the contract).
  virtual SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) = 0;
  // The same with arrays lent for the solve's work (solvers that use none ignore them).
  virtual SolveStats solve_with(Field<R>& x, Field<R>& b, double tolerance, const LentArrays<R>& lent) {
    (void)lent;
    return solve(x, b, tolerance);
  }
  // Whether the solver can solve in a fixed number of passes without measuring a residual
  // (pressure.check_interval): device work alone, with no value read back to the host, so
  // that the whole step can be replayed as one CUDA graph: the direct fft solve, and the
  // multigrid with every level on the backend and no FMG.
  virtual bool solves_in_fixed_passes() const { return false; }
  // That solve: `passes` passes (the count a checked solve took), x's ghosts filled.
  virtual SolveStats solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) {
    (void)x, (void)b, (void)passes, (void)lent;
    throw std::logic_error("this pressure solver has no solve of fixed passes");
  }
  // max |b - lap x| over the interior (x's ghosts must be filled).
  virtual double residual_norm(const Field<R>& x, const Field<R>& b) const = 0;
  // Device-memory traffic of a solve that went as `s` says, in bytes (each array counted once
  // per pass that reads or writes it): the step's traffic model adds it.
  virtual double bytes_per_solve(const SolveStats& s) const = 0;
};

// What the choice of a pressure solver depends on: the grid's shape, its spacings (dx, dy
// and the thinnest z cell), whether z is stretched and whether it is periodic.
struct PressureGrid {
  std::array<int, 3> n{};
  std::array<double, 3> h{1, 1, 1};
  bool stretched = false;     // z
  bool stretched_xy = false;  // x or y
  bool periodic_x = false, periodic_y = false, periodic_z = false;
  int ranks = 1;  // the ranks the run cuts the grid over (`auto`'s choice depends on it)
  static PressureGrid of(const Grid& g, const FieldBC& bc);
  // The largest ratio of a horizontal spacing to the thinnest vertical one (axes of one cell
  // left out).
  double aspect() const;
};

// Why a solver cannot work on a grid, as "expected ..., got ..." (a message to follow
// "WHERE: "): the case is refused at /pressure/solver when another solver would take the grid
// (solver_at_fault), else at /grid/n.
struct SolverRefusal {
  std::string message;
  bool solver_at_fault = false;  // another solver would take this grid
};

}  // namespace bouss
