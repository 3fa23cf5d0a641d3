// Where the case meets the pressure solvers: the case's "pressure" section resolved once into
// a concrete solver of the registry (solver/registry.hpp), `auto` chosen for the case's grid,
// with the settings in the solvers' terms. The run, its log, `bouss check`, checkpoints and
// restart compatibility all read this plan; none of them resolves `auto` again.
#pragma once

#include <array>
#include <string>
#include <utility>

#include "config/case.hpp"
#include "solver/registry.hpp"

namespace bouss {

// What the choice of the case's solver depends on: its grid's shape and spacings, whether z
// is stretched and which axes are periodic.
PressureGrid pressure_grid(const Case& c);
// The case's pressure section in the solvers' terms.
SolverSettings solver_settings(const PressureParams& p);

struct PressurePlan {
  SolverChoice choice;  // the solver and why it was chosen
  SolverSettings settings;
  double tolerance = 0;
  bool extrapolates = false;  // the step extrapolates the first guess from the last two steps
  const SolverType& type() const { return *choice.type; }
  std::string name() const { return std::string(choice.name()); }
};

// The case's plan. Throws CaseError "SOURCE: /pressure/solver: expected one of ..." for an
// unknown solver, and the solver's refusal of the grid at /pressure/solver (another solver
// would take it) or at /grid/n.
PressurePlan plan_pressure(const Case& c);

// What the plan builds, in one line (the log and `bouss check`).
std::string describe_pressure(const Case& c, const PressurePlan& plan, const Backend& backend);
// Bytes the solver allocates on `grid` (this rank's block, or the whole grid where it is
// gathered) inside a run: {on the backend, on the host}.
std::pair<double, double> pressure_memory(const Case& c, const PressurePlan& plan, const Backend& backend,
                                          const Grid& grid);
// Whether rank `rank` of `ranks` solves the pressure of the whole grid (gathered onto rank 0).
bool gathers_pressure(const Case& c, const PressurePlan& plan, const Communicator& ranks);

// The rules every grid shape obeys, in case files (/grid/n) and wherever else a shape is
// given (`bouss bench poisson --n`): three positive cell counts, at most 65535 per axis (the
// CUDA launch grid's y/z limit); an axis of one cell is periodic (it is a 2D run's unused
// direction); and the multigrid can coarsen the shape (sizes m*2^k; the nearest valid
// shape is suggested). Throws CaseError "WHERE: expected ..., got ..." naming the first
// rule broken; `where` starts the message, e.g. "cases/rb.json: /grid/n" or "--n". The rules
// are grid/shape_rules.hpp's and the point multigrid's own (solver/registry.hpp).
void check_grid_shape(const std::array<int, 3>& n, const std::array<bool, 3>& periodic, const std::string& where);

}  // namespace bouss
