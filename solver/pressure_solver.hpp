// The pressure equation's solvers behind one interface (the seam of the line-solver issue):
// the step asks for lap(x) = b to a relative tolerance and gets back what the solve did;
// which solver does it is the case's `pressure.solver`. Every solver measures convergence
// the same way, max|b - lap x| <= tolerance * max|b| over the interior, warm-starts from x,
// removes the mean of b first (b is changed) and of x afterwards for a singular problem (no
// value condition), and leaves x's ghosts filled. Today the one solver is the geometric
// multigrid (solver/multigrid.hpp).
#pragma once

#include <array>
#include <memory>
#include <optional>
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
  // The residual stopped falling before the tolerance: two iterations in a row that each left
  // more than stall_ratio of it, the mark of the precision's round-off floor (a solve that
  // converges gains a factor of 5-20 an iteration). The solve ends there, unconverged.
  bool stalled = false;
  static constexpr double stall_ratio = 0.9;
  std::vector<double> residual_history;  // max|b - lap x| / max|b|: initial, then after each iteration
};

template <class R>
class PressureSolver {
 public:
  virtual ~PressureSolver() = default;
  // Solves lap(x) = b (above for the contract).
  virtual SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) = 0;
  // max |b - lap x| over the interior (x's ghosts must be filled).
  virtual double residual_norm(const Field<R>& x, const Field<R>& b) const = 0;
  // Device-memory traffic of a solve that went as `s` says, in bytes (each array counted once
  // per pass that reads or writes it): the step's traffic model adds it.
  virtual double bytes_per_solve(const SolveStats& s) const = 0;
};

// The solver the case's "pressure" section names, for fields of precision R on `grid` with
// the pressure's boundary conditions `bc`.
template <class R>
std::unique_ptr<PressureSolver<R>> make_pressure_solver(const PressureParams& p, const Backend& backend, const Grid& grid,
                                                        const FieldBC& bc);
// Why the solver that `p` names cannot work on a grid of n cells (stretched in z or not), as
// "expected ..., got ..." (a message to follow "WHERE: "), or nothing: the case validator asks
// it at /grid/n (at /pressure/solver when the stretching alone is the problem), after the
// rules every shape obeys (grid/shape_rules.hpp).
std::optional<std::string> pressure_solver_refuses(const PressureParams& p, const std::array<int, 3>& n,
                                                   bool stretched = false);
// What make_pressure_solver builds for the case, in one line (the log and `bouss check`).
std::string describe_pressure_solver(const Case& c, const Backend& backend);
// Bytes it allocates for the case's fields on `grid`: {on the backend, on the host}.
std::pair<double, double> pressure_solver_memory(const Case& c, const Backend& backend, const Grid& grid);

}  // namespace bouss
