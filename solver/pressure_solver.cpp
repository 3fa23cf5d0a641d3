// The pressure solvers behind one interface (solver/pressure_solver.hpp).
#include "solver/pressure_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "grid/coarsening.hpp"
#include "solver/fourier_solver.hpp"
#include "solver/gathered_solver.hpp"
#include "solver/line_multigrid.hpp"
#include "solver/line_pcg.hpp"
#include "solver/multigrid.hpp"
#include "solver/simulation.hpp"
#include "solver/slab_transform.hpp"

namespace bouss {
namespace {

// Sizes m*2^k with m <= max_odd_factor coarsen to at most m cells along their axis.
constexpr int max_odd_factor = 8;

int odd_part(int n) {
  while (n % 2 == 0) n /= 2;
  return n;
}

// The size of the form m*2^k (m <= max_odd_factor, at most max_axis_cells) nearest to n;
// ties go to the larger.
int nearest_coarsenable_size(int n) {
  long best = 1;
  for (long m = 1; m <= max_odd_factor; ++m) {
    for (long size = m; size <= 65535; size *= 2) {
      const long d = std::abs(size - n), best_d = std::abs(best - n);
      if (d < best_d || (d == best_d && size > best)) best = size;
    }
  }
  return static_cast<int>(best);
}

// The geometric multigrid's rule (grid/coarsening.hpp): its coarsest grid, solved directly,
// holds at most max_coarsest_cells cells.
std::optional<std::string> multigrid_refuses(const std::array<int, 3>& n) {
  if (multigrid_can_coarsen(n)) return std::nullopt;
  const auto coarsest = multigrid_levels(n).back();
  std::array<int, 3> suggestion = n;
  for (int a = 0; a < 3; ++a) {
    if (odd_part(n[a]) > max_odd_factor) suggestion[a] = nearest_coarsenable_size(n[a]);
  }
  return fmt::format("expected a grid the multigrid can coarsen (it halves each even axis until all are odd; the "
                     "coarsest grid may have at most {} cells), got [{},{},{}], whose coarsest grid is {}x{}x{} = {} "
                     "cells; use sizes m*2^k with m <= {}, e.g. [{},{},{}]",
                     max_coarsest_cells, n[0], n[1], n[2], coarsest[0], coarsest[1], coarsest[2], cell_count(coarsest),
                     max_odd_factor, suggestion[0], suggestion[1], suggestion[2]);
}

}  // namespace

PressureGrid PressureGrid::of(const Case& c) {
  PressureGrid g;
  g.n = c.n;
  g.h = make_grid(c, sizeof(double)).smallest_spacings();  // no allocation: the geometry alone
  g.stretched = c.stretched();
  g.periodic_x = c.periodic(0);
  g.periodic_y = c.periodic(1);
  g.periodic_z = c.periodic(2);
  return g;
}

PressureGrid PressureGrid::of(const Grid& grid, const FieldBC& bc) {
  PressureGrid g;
  g.n = grid.global_n();
  g.h = grid.smallest_spacings();
  g.stretched = grid.stretched();
  g.periodic_x = bc.periodic(0);
  g.periodic_y = bc.periodic(1);
  g.periodic_z = bc.periodic(2);
  return g;
}

double PressureGrid::aspect() const {
  double widest = 0;
  for (int a = 0; a < 2; ++a)
    if (n[a] > 1) widest = std::max(widest, h[a]);
  return n[2] > 1 && widest > 0 ? widest / h[2] : 1.0;
}

SolverChoice choose_pressure_solver(const PressureParams& p, const PressureGrid& g) {
  if (p.solver != "auto") return {p.solver, "named by the case"};
  if (g.periodic_z) return {"multigrid", "z is periodic (the line solvers need walls at the ends of their lines)"};
  if (g.periodic_x && g.periodic_y)
    return {"fft", "x and y periodic, walls in z: one direct Fourier-tridiagonal solve"};
  if (g.stretched) return {"line_multigrid", "z is stretched (the point multigrid takes a uniform z)"};
  const double aspect = g.aspect();
  if (aspect >= line_solver_aspect)
    return {"line_multigrid", fmt::format("cells {:.3g} times wider than tall (from {:g}, point smoothing slows "
                                          "down: README, \"Performance\")", aspect, line_solver_aspect)};
  return {"multigrid", fmt::format("cells {:.3g} times wider than tall (below {:g}, point smoothing is the faster)",
                                   aspect, line_solver_aspect)};
}

std::optional<SolverRefusal> pressure_solver_refuses(const PressureParams& p, const PressureGrid& g) {
  const SolverChoice choice = choose_pressure_solver(p, g);
  if (choice.name == "multigrid") {
    if (g.stretched)
      return SolverRefusal{fmt::format("expected a line solver (\"line_multigrid\" or \"auto\") on a stretched z (the "
                                       "point multigrid's coarse levels halve z, and its stencil takes one z spacing), "
                                       "got \"{}\"", p.solver),
                           true};
    if (auto problem = multigrid_refuses(g.n)) return SolverRefusal{*problem, false};
    return std::nullopt;
  }
  if (choice.name == "fft")
    if (const auto why = FourierSolver<double>::refuses(g)) return SolverRefusal{*why, true};
  // line_multigrid, line_pcg, fft: z is never coarsened or transformed, the lines need walls.
  if (g.periodic_z && g.n[2] > 1)
    return SolverRefusal{fmt::format("expected walls at z_lo and z_hi for \"{}\" (its vertical lines are solved as "
                                     "tridiagonal systems between walls), got a periodic z",
                                     choice.name),
                         true};
  return std::nullopt;
}

template <class R>
std::unique_ptr<PressureSolver<R>> make_pressure_solver(const PressureParams& p, const Backend& backend, const Grid& grid,
                                                        const FieldBC& bc) {
  const SolverChoice choice = choose_pressure_solver(p, PressureGrid::of(grid, bc));
  // A grid cut over ranks: the solvers that do not work on blocks solve it whole on rank 0.
  if (grid.decomposition && !backend.ranks().alone() && !solved_on_blocks(choice.name, grid.global_n(), backend.ranks().size()))
    return std::make_unique<GatheredSolver<R>>(p, backend, grid, bc);
  if (choice.name == "line_multigrid") return std::make_unique<LineMultigrid<R>>(backend, grid, bc, line_multigrid_options(p));
  if (choice.name == "line_pcg") return std::make_unique<LinePcg<R>>(backend, grid, bc, line_pcg_options(p));
  if (choice.name == "fft") return std::make_unique<FourierSolver<R>>(backend, grid, bc);
  return std::make_unique<Multigrid<R>>(backend, grid, bc, multigrid_options(p, backend));
}

bool solved_on_blocks(const std::string& solver, const std::array<int, 3>& n, int ranks) {
  // The point multigrid where the grid has a level below the finest to gather onto rank 0.
  if (solver == "multigrid") return multigrid_levels(n).size() > 1;
  if (solver == "line_multigrid" || solver == "line_pcg") return true;
  return solver == "fft" && SlabTransform<double>::applies(n, ranks);
}

bool extrapolates_pressure(const Case& c) {
  return c.pressure.first_guess == "extrapolated" && choose_pressure_solver(c.pressure, PressureGrid::of(c)).name != "fft";
}

namespace {
// The log's words for a multigrid's levels under several ranks.
std::string on_the_ranks(int cut, int levels, int agglomerate_below) {
  if (cut == levels) return fmt::format("; every level on the ranks' blocks (halos exchanged before each colour)");
  return fmt::format("; {} on the ranks' blocks (halos exchanged before each colour), the coarser gathered onto rank 0 "
                     "(pressure.agglomerate_below = {})",
                     cut == 1 ? std::string("the finest") : fmt::format("the first {}", cut), agglomerate_below);
}
}  // namespace

std::string describe_pressure_solver(const Case& c, const Backend& backend) {
  const SolverChoice choice = choose_pressure_solver(c.pressure, PressureGrid::of(c));
  const int every = pressure_check_interval(c.pressure, choice.name, backend);
  // The cadence where the solver takes it: fft, and the multigrid where its plan allows
  // (Multigrid::fixed_passes_possible).
  // Under several ranks: on the blocks, or gathered onto rank 0 and checked every step
  // (solver/gathered_solver.hpp).
  const bool ranks = !backend.ranks().alone();
  const bool gathered = ranks && !solved_on_blocks(choice.name, c.n, backend.ranks().size());
  const auto cadence = [&](bool fixed) {
    return fixed && every > 1 && !gathered ? fmt::format(", residual checked every {} steps (the passes fixed between)", every) : "";
  };
  const std::string why = std::string(extrapolates_pressure(c) ? ", first guess extrapolated from the last two steps" : "") +
                          (gathered ? std::string(", gathered and solved whole on rank 0 (") +
                                          (choice.name == "fft" ? "its transposes need a z level and a y row per rank"
                                                                : "the grid has no coarser level") +
                                          ")"
                                    : "") +
                          (c.pressure.solver == "auto" ? " [auto: " + choice.reason + "]" : "");
  const bool single = c.precision == "single";
  if (choice.name == "line_multigrid") {
    const LineMultigridOptions opt = line_multigrid_options(c.pressure);
    const auto levels = line_multigrid_levels(c.n);
    std::string text = fmt::format("line multigrid (zebra vertical lines, z never coarsened) V({},{}) to {:g}{}, {} "
                                   "levels: ",
                                   opt.pre_sweeps, opt.post_sweeps, c.pressure.tolerance, single ? " (fp32)" : " (fp64)",
                                   levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l)
      text += fmt::format("{}{}x{}x{}", l ? ", " : "", levels[l][0], levels[l][1], levels[l][2]);
    if (ranks) text += on_the_ranks(LineMultigrid<double>::levels_on_the_ranks(
                          make_grid(c, sizeof(double)).part(decompose(c, backend.ranks())), opt),
                      int(levels.size()), opt.agglomerate_below);
    return text + why;
  }
  if (choice.name == "fft")
    return fmt::format("Fourier-tridiagonal direct solve ({} plane transforms, a tridiagonal solve per horizontal "
                       "mode){}{}{}",
                       backend.is_cuda() ? "cuFFT" : "FFTW", single ? " (fp32)" : " (fp64)",
                       ranks && !gathered ? "; transposed through z slabs and bands of modes over the ranks (two "
                                            "all-to-alls each way a pass)"
                                          : "",
                       cadence(true) + why);
  if (choice.name == "line_pcg")
    return fmt::format("line-preconditioned CG (vertical lines solved exactly) to {:g}{}, at most {} iterations{}",
                       c.pressure.tolerance, single ? " (fp32)" : " (fp64)", line_pcg_options(c.pressure).max_iterations,
                       why);
  const MultigridOptions opt = multigrid_options(c.pressure, backend);
  const auto levels = Multigrid<double>::plan(backend, c.n, opt);
  const char* precision = single ? " (fp32 fields and cycles)"
                          : opt.mixed_precision ? " (fp32 cycles in fp64 defect correction)"
                                                : " (fp64)";
  std::string text = fmt::format("multigrid V({},{}) to {:g}{}, {} levels: ", opt.pre_sweeps, opt.post_sweeps,
                                 c.pressure.tolerance, precision, levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l)
    text += fmt::format("{}{}x{}x{}{}", l ? ", " : "", levels[l].n[0], levels[l].n[1], levels[l].n[2],
                        levels[l].on_host ? " (host)" : "");
  if (ranks) text += on_the_ranks(Multigrid<double>::levels_on_the_ranks(
                        make_grid(c, sizeof(double)).part(decompose(c, backend.ranks())), opt),
                    int(levels.size()), opt.agglomerate_below);
  // Under several ranks the multigrid checks every step (Multigrid::solves_in_fixed_passes).
  return text + cadence(!ranks && Multigrid<double>::fixed_passes_possible(backend, opt, levels)) + why;
}

std::pair<double, double> pressure_solver_memory(const Case& c, const Backend& backend, const Grid& grid) {
  const SolverChoice choice = choose_pressure_solver(c.pressure, PressureGrid::of(c));
  const bool single = c.precision == "single";
  if (choice.name == "line_multigrid")
    return {LineMultigrid<double>::estimate_memory(grid, single ? 4 : 8, line_multigrid_options(c.pressure)), 0.0};
  if (choice.name == "line_pcg")
    return {LinePcg<double>::estimate_memory(grid, single ? 4 : 8, line_pcg_options(c.pressure).max_iterations), 0.0};
  if (choice.name == "fft") {  // the plane transforms' work area: of the block, or of this rank's slab
    const Layout planes = grid.decomposition && grid.decomposition->ranks() > 1 ? SlabTransform<double>::slab_layout(grid)
                                                                                : grid.layout;
    return {FourierSolver<double>::estimate_memory(grid, single ? 4 : 8, true) +
                double(single ? plane_fft_work_bytes<float>(backend, planes) : plane_fft_work_bytes<double>(backend, planes)),
            0.0};
  }
  const MultigridOptions opt = multigrid_options(c.pressure, backend);
  return single ? Multigrid<float>::estimate_memory(backend, grid, opt)
                : Multigrid<double>::estimate_memory(backend, grid, opt);
}

LineMultigridOptions line_multigrid_options(const PressureParams& p) {
  LineMultigridOptions o;
  o.max_cycles = p.max_cycles;
  o.pre_sweeps = p.pre_sweeps;
  o.post_sweeps = p.post_sweeps;
  o.agglomerate_below = p.agglomerate_below.value_or(default_agglomerate_below);
  o.cuda_graphs = p.cuda_graphs;
  return o;
}

int pressure_check_interval(const PressureParams& p, const std::string& solver, const Backend& backend) {
  if (p.check_interval) return *p.check_interval;
  if (solver == "fft") return 10;
  if (solver == "multigrid" && backend.is_cuda()) return multigrid_check_interval;
  return 1;
}

MultigridOptions multigrid_options(const PressureParams& p, const Backend& backend) {
  MultigridOptions o;
  o.pre_sweeps = p.pre_sweeps;
  o.post_sweeps = p.post_sweeps;
  o.max_cycles = p.max_cycles;
  o.omega = p.omega;
  o.fmg = p.fmg;
  // Measured (README, "Performance"): fp32 cycles are 8-14% faster on the H200 and slower
  // on the CPU, and reach the same fp64 tolerance on both.
  o.mixed_precision = p.mixed_precision.value_or(backend.is_cuda());
  o.cuda_graphs = p.cuda_graphs;
  // Cycles fixed between checks need every level on the device (host levels read back).
  const bool fixed_cycles = backend.is_cuda() && !p.fmg && pressure_check_interval(p, "multigrid", backend) > 1;
  o.cpu_coarse_cells = p.cpu_coarse_cells.value_or(fixed_cycles ? 0 : default_cpu_coarse_cells);
  o.agglomerate_below = p.agglomerate_below.value_or(default_agglomerate_below);
  return o;
}

template std::unique_ptr<PressureSolver<double>> make_pressure_solver<double>(const PressureParams&, const Backend&,
                                                                              const Grid&, const FieldBC&);
template std::unique_ptr<PressureSolver<float>> make_pressure_solver<float>(const PressureParams&, const Backend&,
                                                                            const Grid&, const FieldBC&);

}  // namespace bouss
