// The pressure equation's solvers behind one interface (the seam of the line-solver issue):
// the step asks for lap(x) = b to a relative tolerance and gets back what the solve did;
// which solver does it is the case's `pressure.solver`. Every solver measures convergence
// the same way, max|b - lap x| <= tolerance * max|b| over the interior, warm-starts from x,
// removes the mean of b first (b is changed) and of x afterwards for a singular problem (no
// value condition; volume means on a stretched grid), and leaves x's ghosts filled. The
// solvers: the geometric multigrid with point smoothing (solver/multigrid.hpp) and the
// tensor-product multigrid with vertical line smoothing (solver/line_multigrid.hpp), CG
// preconditioned by the vertical lines (solver/line_pcg.hpp), and the direct
// Fourier-tridiagonal solve (solver/fourier_solver.hpp).
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
#include "io/case.hpp"

namespace bouss {

struct SolveStats {
  int cycles = 0;     // iterations (V-cycles), plus one for the FMG start when it ran
  bool fmg = false;   // the solve started with FMG
  bool converged = false;
  // The residual stopped falling before the tolerance, the mark of the precision's round-off
  // floor: two iterations in a row that each left more than stall_ratio of the residual
  // before it (a multigrid that converges gains a factor of 5-20 an iteration). The solve
  // ends there, unconverged. CG has no such rule (its maximum residual plateaus for
  // hundreds of iterations on its way down: solver/line_pcg.hpp); the direct Fourier solve
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
  bool stretched = false;
  bool periodic_x = false, periodic_y = false, periodic_z = false;
  static PressureGrid of(const Case& c);
  static PressureGrid of(const Grid& g, const FieldBC& bc);
  // The largest ratio of a horizontal spacing to the thinnest vertical one (axes of one cell
  // left out).
  double aspect() const;
};

// The solver `p` names, with "auto" resolved: fft (the direct Fourier-tridiagonal solve)
// where x and y are periodic and z has walls; else line_multigrid on a stretched z or where
// cells are at least line_solver_aspect times wider than tall, the point multigrid otherwise;
// the reason in words for the log.
struct SolverChoice {
  std::string name;
  std::string reason;
};
constexpr double line_solver_aspect = 4;
SolverChoice choose_pressure_solver(const PressureParams& p, const PressureGrid& g);

// The solver the case's "pressure" section names, for fields of precision R on `grid` with
// the pressure's boundary conditions `bc`.
template <class R>
std::unique_ptr<PressureSolver<R>> make_pressure_solver(const PressureParams& p, const Backend& backend, const Grid& grid,
                                                        const FieldBC& bc);
// Why the solver that `p` names (or "auto" picks) cannot work on the grid, as "expected ...,
// got ..." (a message to follow "WHERE: "), or nothing: the case validator asks it at
// /grid/n (at /pressure/solver when the solver, not the shape, is the problem), after the
// rules every shape obeys (grid/shape_rules.hpp).
struct SolverRefusal {
  std::string message;
  bool solver_at_fault = false;  // another solver would take this grid
};
std::optional<SolverRefusal> pressure_solver_refuses(const PressureParams& p, const PressureGrid& g);
// Steps between the residual checks of `solver` (a resolved name: choose_pressure_solver)
// on `backend`: pressure.check_interval, or unset the solver's default: 10 for fft, 10 for
// the multigrid on CUDA (multigrid.hpp multigrid_check_interval), 1 otherwise. It takes
// effect where the solver can solve in fixed passes (PressureSolver::solves_in_fixed_passes).
int pressure_check_interval(const PressureParams& p, const std::string& solver, const Backend& backend);

// Whether `solver` (a resolved name) works on the blocks of a grid of n cells cut over
// `ranks` ranks: the multigrids (their coarse levels gathered; the point multigrid where the
// grid has a coarser level), line_pcg, and fft where nz and ny have a level and a row for
// every rank (solver/slab_transform.hpp); otherwise the solve is gathered onto rank 0 whole
// (solver/gathered_solver.hpp).
bool solved_on_blocks(const std::string& solver, const std::array<int, 3>& n, int ranks);
// Whether the step extrapolates the pressure in time for the solve's start: pressure.first_guess
// "extrapolated" with a solver that starts from a guess (every one but the direct fft).
bool extrapolates_pressure(const Case& c);
// What make_pressure_solver builds for the case, in one line (the log and `bouss check`).
std::string describe_pressure_solver(const Case& c, const Backend& backend);
// Bytes it allocates for the case's fields on `grid` inside a run, where the step lends it
// arrays (LentArrays): {on the backend, on the host}.
std::pair<double, double> pressure_solver_memory(const Case& c, const Backend& backend, const Grid& grid);

}  // namespace bouss
