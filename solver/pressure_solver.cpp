// The pressure solvers behind one interface (solver/pressure_solver.hpp).
#include "solver/pressure_solver.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "grid/coarsening.hpp"
#include "solver/multigrid.hpp"

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

std::optional<std::string> pressure_solver_refuses(const PressureParams& p, const std::array<int, 3>& n, bool stretched) {
  if (stretched && p.solver == "multigrid")
    return fmt::format("expected a line solver on a stretched z (the point multigrid's coarse levels halve z, and its "
                       "stencil takes one z spacing), got \"{}\"", p.solver);
  return multigrid_refuses(n);
}

template <class R>
std::unique_ptr<PressureSolver<R>> make_pressure_solver(const PressureParams& p, const Backend& backend, const Grid& grid,
                                                        const FieldBC& bc) {
  return std::make_unique<Multigrid<R>>(backend, grid, bc, multigrid_options(p, backend));
}

std::string describe_pressure_solver(const Case& c, const Backend& backend) {
  const MultigridOptions opt = multigrid_options(c.pressure, backend);
  const auto levels = Multigrid<double>::plan(backend, c.n, opt);
  const bool single = c.precision == "single";
  const char* precision = single ? " (fp32 fields and cycles)"
                          : opt.mixed_precision ? " (fp32 cycles in fp64 defect correction)"
                                                : " (fp64)";
  std::string text = fmt::format("multigrid V({},{}) to {:g}{}, {} levels: ", opt.pre_sweeps, opt.post_sweeps,
                                 c.pressure.tolerance, precision, levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l)
    text += fmt::format("{}{}x{}x{}{}", l ? ", " : "", levels[l].n[0], levels[l].n[1], levels[l].n[2],
                        levels[l].on_host ? " (host)" : "");
  return text;
}

std::pair<double, double> pressure_solver_memory(const Case& c, const Backend& backend, const Grid& grid) {
  const MultigridOptions opt = multigrid_options(c.pressure, backend);
  return c.precision == "single" ? Multigrid<float>::estimate_memory(backend, grid, opt)
                                 : Multigrid<double>::estimate_memory(backend, grid, opt);
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
  o.cpu_coarse_cells = p.cpu_coarse_cells.value_or(default_cpu_coarse_cells);
  return o;
}

template std::unique_ptr<PressureSolver<double>> make_pressure_solver<double>(const PressureParams&, const Backend&,
                                                                              const Grid&, const FieldBC&);
template std::unique_ptr<PressureSolver<float>> make_pressure_solver<float>(const PressureParams&, const Backend&,
                                                                            const Grid&, const FieldBC&);

}  // namespace bouss
