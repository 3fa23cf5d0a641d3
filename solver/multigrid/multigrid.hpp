// Geometric multigrid for the cell-centred Poisson problem lap(x) = b (paper 004):
// a full-multigrid (FMG) start on the defect of the initial guess, then V-cycles to a
// relative residual tolerance; red-black over-relaxed Gauss-Seidel smoothing with the
// wall conditions folded into the update; restriction of the residual by averaging the
// children (fused with the residual); trilinear cell-centred prolongation (fused with the
// correction); the coarsest level solved directly.
//
// Any grid shape: each axis whose cell count is even is halved per level, the others stay
// (grid/coarsening.hpp). Levels at or below a cell-count threshold run on the CPU even
// when the fine grid is on the GPU (paper 004, "Run small problems on the CPU"): only the
// restricted residual goes down and the coarse correction comes back. The device part of
// a V-cycle is replayed as CUDA graphs.
//
// Multigrid<R> solves for fields of the run's precision R. In a double run the V-cycles can
// run in a cheaper precision (float) inside defect correction in double, converging to the
// same tolerance (mixed_precision); in a single run they are float, like everything else.
// The levels, cycles and solve are the multigrid driver's (solver/multigrid/driver.hpp);
// the red-black smoother, the transfers and the coarsest solve its level operator's,
// PointRelaxation (solver/multigrid/multigrid.cu).
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/multigrid/driver.hpp"
#include "solver/registry.hpp"

namespace bouss {

// Levels with at most this many cells run on the host when the fine grid is on the GPU.
// Measured on the H200 (`bouss bench relax`, paper 004's Figure 2): 100 relaxations of
// 8^3 take 0.86 ms on the host and 1.22 ms as a CUDA graph, of 10^3 1.29 and 1.26 ms.
constexpr long default_cpu_coarse_cells = 512;
// On CUDA the multigrid checks its residual every this many steps by default, with every
// level on the device, its V-cycles fixed between checks (pressure.check_interval): measured
// on an H100 (docs/performance.md), the same divergence over a run of developed Ra = 1e7
// convection, 6-36% faster steps than host coarse levels checked every step. On the CPU
// a residual read costs no device round trip: it checks every step.
constexpr int multigrid_check_interval = 10;


struct MultigridOptions {
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int max_cycles = 50;
  double omega = 1.25;  // over-relaxation of the red-black smoother (0.02-0.03 per V(2,2) in 3D)
  bool fmg = false;   // full-multigrid start on the defect of the initial guess (see README: measured)
  bool mixed_precision = false;  // a double run's V-cycles in float inside defect correction in double
  bool cuda_graphs = true;       // replay the device part of each cycle as CUDA graphs
  long cpu_coarse_cells = 0;     // levels with at most this many cells run on the host (GPU runs)
  // Under several ranks, a level stays cut over them while every rank's block keeps at least
  // this many cells along each cut axis; the coarser levels are gathered onto rank 0.
  int agglomerate_below = default_agglomerate_below;
};


// The multigrid options the settings ask for (the backend picks the defaults of
// mixed_precision and cpu_coarse_cells).
MultigridOptions multigrid_options(const SolverSettings& s, const Backend& backend);
// The log's words for a multigrid's levels under several ranks: `cut` of `levels` on the blocks
// (`two_layers`: its coarser levels there exchange once a sweep, solver/multigrid/hierarchy.hpp).
std::string levels_on_the_ranks_text(int cut, int levels, int agglomerate_below, bool two_layers);

template <class S>
class PointRelaxation;  // the level operator (solver/multigrid/multigrid.cu)

template <class R>
class Multigrid final : public MultigridDriver<PointRelaxation, MultigridOptions, R> {
 public:
  Multigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, MultigridOptions opt = {});
  ~Multigrid() override;

  // The FMG start when it ran, the V-cycles and the convergence check before them.
  double bytes_per_solve(const SolveStats& s) const override;
  // V-cycles without residual checks (pressure.check_interval), where every level runs on
  // the backend (pressure.cpu_coarse_cells = 0: host levels read back each cycle) and
  // without FMG: device work alone, which the step can replay as one CUDA graph.
  bool solves_in_fixed_passes() const override;
  SolveStats solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) override;

  // The levels a multigrid of this grid would have, finest first, and which run on the host
  // (without allocating anything: for `bouss check` and the log).
  struct LevelPlan {
    std::array<int, 3> n;
    bool on_host;
  };
  static std::vector<LevelPlan> plan(const Backend& backend, const std::array<int, 3>& n, const MultigridOptions& opt);
  // Whether those levels and options allow solve_passes: no FMG, no host level in a GPU run.
  static bool fixed_passes_possible(const Backend& backend, const MultigridOptions& opt,
                                    const std::vector<LevelPlan>& levels);
  // Bytes a multigrid for this grid and these options allocates: {on the backend, on the
  // host} (host coarse levels of a GPU run are pinned host memory).
  static std::pair<double, double> estimate_memory(const Backend& backend, const Grid& fine,
                                                   const MultigridOptions& opt);

  // Device-memory traffic model (each array counted once per pass), in bytes:
  // one V-cycle with its convergence check, and one FMG start.
  double bytes_per_cycle() const;
  double bytes_fmg() const;

 private:
  using Driver = MultigridDriver<PointRelaxation, MultigridOptions, R>;
  static constexpr int mean_slots = 4;  // b's sum, max and min, then x's sum (solve_passes)
  double* means_ = nullptr;             // on the backend
};

// Paper 004's Figure 2 measurement: milliseconds for `sweeps` red-black relaxations
// (with their ghost fills) of an n^3 grid (periodic sides, Neumann top and bottom), on
// one backend, optionally replayed as a CUDA graph. Median of `repeats` after a warm-up.
double time_relaxations(const Backend& backend, int n, int sweeps, bool cuda_graph, int repeats = 5);

}  // namespace bouss
