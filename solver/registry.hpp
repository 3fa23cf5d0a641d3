// The registry of the pressure solvers: the one place that knows which solvers exist. Each
// solver describes itself in an entry (a SolverType, defined beside the solver it builds):
// its name, which grids and blocks it takes and why it refuses the others, when `auto`
// picks it, how it describes itself in the log, what it allocates and how often it checks
// its residual. Nothing outside this folder compares a solver's name: a caller resolves the
// name once (choose_solver) and asks the entry it gets. A new solver is a new entry and one
// line in solver_types().
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/grid.hpp"
#include "solver/pressure_solver.hpp"

namespace bouss {

// What a caller may set for the pressure solvers, in the solvers' terms (the case's
// "pressure" section, model/pressure_plan.hpp); unset values take each solver's default.
struct SolverSettings {
  int max_cycles = 50;  // V-cycles; line_pcg takes line_pcg_iterations_per_cycle iterations per cycle
  int pre_sweeps = 2;
  int post_sweeps = 2;
  double omega = 1.25;  // over-relaxation of the point multigrid's red-black smoother
  bool fmg = false;
  std::optional<bool> mixed_precision;  // the point multigrid's fp32 cycles in an fp64 run
  bool cuda_graphs = true;
  // Steps between residual checks where the solver can solve in fixed passes.
  std::optional<int> check_interval;
  std::optional<long> cpu_coarse_cells;
  std::optional<int> agglomerate_below;
  // Solves lap x - shift x = b (the model problem of papers 000/001, `bouss bench elliptic
  // --cfl`), for the solvers that take it (SolverType::solves_shifted); 0: the pressure's lap x = b.
  double shift = 0;
};

// A solver asked about one problem: the backend it would run on (with its ranks), the whole
// grid, this rank's block of it (the whole grid on one rank), the settings and the fields'
// precision (value_bytes: 4 for float, 8 for double).
struct SolverContext {
  Backend backend;
  Grid whole, block;
  SolverSettings settings;
  std::size_t value_bytes = sizeof(double);
  double tolerance = 0;  // the solve's relative tolerance (for the description)
  PressureGrid pressure;  // the whole grid's shape and walls, as the solvers see them
  bool single() const { return value_bytes == sizeof(float); }
  bool ranks() const { return !backend.ranks().alone(); }
};

class SolverType {
 public:
  virtual ~SolverType() = default;
  virtual std::string_view name() const = 0;
  // Other names a case may give it (kept when a solver is renamed), answered by find_solver.
  virtual std::vector<std::string_view> aliases() const { return {}; }
  // Why it cannot solve on g, or nothing.
  virtual std::optional<SolverRefusal> refuses(const PressureGrid& g) const = 0;
  // Why `auto` picks it for g, or nothing; the registry asks in its order, first answer wins.
  virtual std::optional<std::string> suits(const PressureGrid& g) const = 0;
  // Whether it works on the blocks of a grid of n cells cut over `ranks` ranks; otherwise the
  // solve is gathered onto rank 0 whole (solver/gathered_solver.hpp), for the reason given.
  virtual bool solves_on_blocks(const PressureGrid& g, int ranks) const = 0;
  virtual std::string gathered_because() const = 0;
  // The process grid (ranks along x and y) it would have a grid cut into over `ranks` ranks
  // where the run does not name one (--decomposition), or {0, 0}: the halos' choice
  // (Decomposition::choose_dims).
  virtual std::array<int, 2> process_grid(const PressureGrid& g, int ranks) const {
    (void)g, (void)ranks;
    return {0, 0};
  }
  // Whether its cost across ranks is all-to-alls of the whole field (the direct solve's
  // transposes): from auto_multigrid_ranks ranks `auto` passes it over for the next solver
  // that suits and takes the grid (choose_solver).
  virtual bool transposes_across_ranks() const { return false; }
  // Whether it starts from a guess (the step may extrapolate one); a direct solve does not.
  virtual bool starts_from_guess() const { return true; }
  // Whether it solves the shifted problem (SolverSettings::shift).
  virtual bool solves_shifted() const { return false; }
  // What one of its iterations is called in the log ("cycles", "iterations", "passes").
  virtual const char* iteration_unit() const { return "cycles"; }
  // Iterations it counts per max_cycles (SolverSettings::max_cycles).
  virtual int iterations_per_cycle() const { return 1; }
  // Steps between its residual checks: the settings' check_interval, else its default (it
  // takes effect where the solver solves in fixed passes: PressureSolver::solves_in_fixed_passes).
  int check_interval(const SolverSettings& s, const Backend& backend) const {
    return s.check_interval ? *s.check_interval : default_check_interval(backend);
  }
  virtual int default_check_interval(const Backend&) const { return 1; }
  // What it builds, in one line for the log and `bouss check`, and whether that solver will
  // solve in fixed passes between checks.
  virtual std::string describe(const SolverContext& c) const = 0;
  virtual bool fixed_passes(const SolverContext&) const { return false; }
  // Bytes it allocates on `grid` inside a run, where the step lends it arrays (LentArrays):
  // {on the backend, on the host}.
  virtual std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const = 0;
  // The solver itself, for fields of precision double or float on `grid` with the pressure's
  // conditions `bc` (on the blocks; make_solver gathers where it must).
  virtual std::unique_ptr<PressureSolver<double>> make_double(const Backend& backend, const Grid& grid,
                                                              const FieldBC& bc, const SolverSettings& s) const = 0;
  virtual std::unique_ptr<PressureSolver<float>> make_float(const Backend& backend, const Grid& grid,
                                                            const FieldBC& bc, const SolverSettings& s) const = 0;
};

// `auto` picks a line solver for cells at least this many times wider than tall
// (docs/performance.md: point smoothing slows down).
constexpr double line_solver_aspect = 4;

// From this many ranks `auto` passes over a solver that transposes across the ranks (the
// direct solve) to the next solver it would ask that takes the grid (a multigrid): the
// scaling model's crossover (tools/scaling_model.py,
// docs/scaling.md): from 32 GPUs, on several nodes, the direct solve's all-to-alls at the
// network's rate cost more than the multigrid's latency-bound levels, from 512x512x256 to
// 1024^3 (2048^3 from 64). Between nodes nothing is measured; on one node the direct solve
// is the faster at every count measured.
constexpr int auto_multigrid_ranks = 32;

// Every solver, in the order `auto` asks them.
const std::vector<const SolverType*>& solver_types();
// The entry of that name (or alias), or null.
const SolverType* find_solver(std::string_view name);
// The registry's own name of a solver named `name` or one of its aliases ("fft" -> "direct");
// `name` itself when no solver answers to it.
std::string canonical_solver_name(std::string_view name);
// "\"direct\", \"line_multigrid\", ..., \"auto\"": what a case may name (aliases not listed).
std::string solver_names_quoted();

// A name resolved: the solver it names, or the one `auto` picks for g and why.
struct SolverChoice {
  const SolverType* type = nullptr;
  std::string reason;      // "named by the case", or auto's reason
  bool automatic = false;  // chosen by `auto`
  std::string_view name() const { return type->name(); }
};
// Throws std::invalid_argument for a name that is neither a solver nor "auto".
SolverChoice choose_solver(std::string_view name, const PressureGrid& g);
// The refusal of the solver `name` resolves to on g, or nothing.
std::optional<SolverRefusal> solver_refuses(std::string_view name, const PressureGrid& g);

// The chosen solver on `grid` (this rank's block): gathered onto rank 0 where it does not
// work on blocks.
template <class R>
std::unique_ptr<PressureSolver<R>> make_solver(const SolverType& type, const Backend& backend, const Grid& grid,
                                               const FieldBC& bc, const SolverSettings& s);

// One entry per solver, defined beside it.
const SolverType& point_multigrid_type();
const SolverType& line_multigrid_type();
const SolverType& line_pcg_type();
const SolverType& fourier_type();

}  // namespace bouss
