// The point multigrid's entry in the registry (solver/registry.hpp).
#include <fmt/format.h>

#include <cstdlib>

#include "grid/coarsening.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "solver/registry.hpp"
#include "solver/walls_in_z.hpp"

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
std::optional<std::string> cannot_coarsen(const std::array<int, 3>& n) {
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

class PointMultigridType final : public SolverType {
 public:
  std::string_view name() const override { return "multigrid"; }
  std::optional<SolverRefusal> refuses(const PressureGrid& g) const override {
    if (auto why = refuses_stretched_xy(name(), g)) return why;
    if (g.stretched)
      return SolverRefusal{"expected a line solver (\"line_multigrid\" or \"auto\") on a stretched z (the point "
                           "multigrid's coarse levels halve z, and its stencil takes one z spacing), got \"multigrid\"",
                           true};
    if (auto problem = cannot_coarsen(g.n)) return SolverRefusal{*problem, false};
    return std::nullopt;
  }
  std::optional<std::string> suits(const PressureGrid& g) const override {
    if (g.periodic_z) return "z is periodic (the line solvers need walls at the ends of their lines)";
    return fmt::format("cells {:.3g} times wider than tall (below {:g}, point smoothing is the faster)", g.aspect(),
                       line_solver_aspect);
  }
  // Where the grid has a level below the finest to gather onto rank 0.
  bool solves_on_blocks(const PressureGrid& g, int) const override { return multigrid_levels(g.n).size() > 1; }
  std::string gathered_because() const override { return "the grid has no coarser level"; }
  int default_check_interval(const Backend& backend) const override {
    return backend.is_cuda() ? multigrid_check_interval : 1;
  }
  std::string describe(const SolverContext& c) const override {
    const MultigridOptions opt = multigrid_options(c.settings, c.backend);
    const auto levels = Multigrid<double>::plan(c.backend, c.whole.global_n(), opt);
    const char* precision = c.single()            ? " (fp32 fields and cycles)"
                            : opt.mixed_precision ? " (fp32 cycles in fp64 defect correction)"
                                                  : " (fp64)";
    std::string text = fmt::format("multigrid V({},{}) to {:g}{}, {} levels: ", opt.pre_sweeps, opt.post_sweeps,
                                   c.tolerance, precision, levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l)
      text += fmt::format("{}{}x{}x{}{}", l ? ", " : "", levels[l].n[0], levels[l].n[1], levels[l].n[2],
                          levels[l].on_host ? " (host)" : "");
    if (c.ranks())
      text += levels_on_the_ranks_text(Multigrid<double>::levels_on_the_ranks(c.block, opt), int(levels.size()),
                                       opt.agglomerate_below, true);
    return text;
  }
  bool fixed_passes(const SolverContext& c) const override {
    const MultigridOptions opt = multigrid_options(c.settings, c.backend);
    return Multigrid<double>::fixed_passes_possible(c.backend, opt, Multigrid<double>::plan(c.backend, c.whole.global_n(), opt));
  }
  std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const override {
    const MultigridOptions opt = multigrid_options(c.settings, c.backend);
    return c.single() ? Multigrid<float>::estimate_memory(c.backend, grid, opt)
                      : Multigrid<double>::estimate_memory(c.backend, grid, opt);
  }
  std::unique_ptr<PressureSolver<double>> make_double(const Backend& b, const Grid& g, const FieldBC& bc,
                                                      const SolverSettings& s) const override {
    return std::make_unique<Multigrid<double>>(b, g, bc, multigrid_options(s, b));
  }
  std::unique_ptr<PressureSolver<float>> make_float(const Backend& b, const Grid& g, const FieldBC& bc,
                                                    const SolverSettings& s) const override {
    return std::make_unique<Multigrid<float>>(b, g, bc, multigrid_options(s, b));
  }
};

}  // namespace

std::string levels_on_the_ranks_text(int cut, int levels, int agglomerate_below, bool two_layers) {
  const std::string halos = two_layers && cut > 1 ? "halos exchanged before each colour, below the finest once a sweep "
                                                    "with two ghost layers where every block keeps two cells"
                                                  : "halos exchanged before each colour";
  if (cut == levels) return fmt::format("; every level on the ranks' blocks ({})", halos);
  return fmt::format("; {} on the ranks' blocks ({}), the coarser gathered onto rank 0 (pressure.agglomerate_below = {})",
                     cut == 1 ? std::string("the finest") : fmt::format("the first {}", cut), halos, agglomerate_below);
}

MultigridOptions multigrid_options(const SolverSettings& s, const Backend& backend) {
  MultigridOptions o;
  o.pre_sweeps = s.pre_sweeps;
  o.post_sweeps = s.post_sweeps;
  o.max_cycles = s.max_cycles;
  o.omega = s.omega;
  o.fmg = s.fmg;
  // Measured (docs/performance.md, the multigrid options): fp32 cycles are faster on the GPU and slower
  // on the CPU, and reach the same fp64 tolerance on both.
  o.mixed_precision = s.mixed_precision.value_or(backend.is_cuda());
  o.cuda_graphs = s.cuda_graphs;
  // Cycles fixed between checks need every level on the device (host levels read back).
  const bool fixed_cycles = backend.is_cuda() && !s.fmg && point_multigrid_type().check_interval(s, backend) > 1;
  o.cpu_coarse_cells = s.cpu_coarse_cells.value_or(fixed_cycles ? 0 : default_cpu_coarse_cells);
  o.agglomerate_below = s.agglomerate_below.value_or(default_agglomerate_below);
  return o;
}

const SolverType& point_multigrid_type() {
  static const PointMultigridType type;
  return type;
}

}  // namespace bouss
