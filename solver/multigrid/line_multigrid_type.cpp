// The line multigrid's entry in the registry (solver/registry.hpp).
#include <fmt/format.h>

#include "solver/multigrid/line_multigrid.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "solver/registry.hpp"
#include "solver/walls_in_z.hpp"

namespace bouss {
namespace {

class LineMultigridType final : public SolverType {
 public:
  std::string_view name() const override { return "line_multigrid"; }
  std::optional<SolverRefusal> refuses(const PressureGrid& g) const override {
    if (auto why = refuses_stretched_xy(name(), g)) return why;
    return refuses_periodic_z(name(), g);
  }
  std::optional<std::string> suits(const PressureGrid& g) const override {
    if (g.periodic_z) return std::nullopt;
    if (g.stretched) return "z is stretched (the point multigrid takes a uniform z)";
    if (g.aspect() >= line_solver_aspect)
      return fmt::format("cells {:.3g} times wider than tall (from {:g}, point smoothing slows down: "
                         "docs/performance.md)",
                         g.aspect(), line_solver_aspect);
    return std::nullopt;
  }
  bool solves_on_blocks(const PressureGrid&, int) const override { return true; }
  bool solves_shifted() const override { return true; }
  std::string gathered_because() const override { return ""; }
  std::string describe(const SolverContext& c) const override {
    const LineMultigridOptions opt = line_multigrid_options(c.settings);
    const auto levels = line_multigrid_levels(c.whole.global_n());
    std::string text = fmt::format("line multigrid (zebra vertical lines, z never coarsened) V({},{}) to {:g}{}, {} "
                                   "levels: ",
                                   opt.pre_sweeps, opt.post_sweeps, c.tolerance, c.single() ? " (fp32)" : " (fp64)",
                                   levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l)
      text += fmt::format("{}{}x{}x{}", l ? ", " : "", levels[l][0], levels[l][1], levels[l][2]);
    if (c.ranks())
      text += levels_on_the_ranks_text(LineMultigrid<double>::levels_on_the_ranks(c.block, opt), int(levels.size()),
                                       opt.agglomerate_below, false);
    return text;
  }
  std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const override {
    return {LineMultigrid<double>::estimate_memory(grid, c.value_bytes, line_multigrid_options(c.settings)), 0.0};
  }
  std::unique_ptr<PressureSolver<double>> make_double(const Backend& b, const Grid& g, const FieldBC& bc,
                                                      const SolverSettings& s) const override {
    return std::make_unique<LineMultigrid<double>>(b, g, bc, line_multigrid_options(s));
  }
  std::unique_ptr<PressureSolver<float>> make_float(const Backend& b, const Grid& g, const FieldBC& bc,
                                                    const SolverSettings& s) const override {
    return std::make_unique<LineMultigrid<float>>(b, g, bc, line_multigrid_options(s));
  }
};

}  // namespace

LineMultigridOptions line_multigrid_options(const SolverSettings& s) {
  LineMultigridOptions o;
  o.max_cycles = s.max_cycles;
  o.pre_sweeps = s.pre_sweeps;
  o.post_sweeps = s.post_sweeps;
  o.agglomerate_below = s.agglomerate_below.value_or(default_agglomerate_below);
  o.cuda_graphs = s.cuda_graphs;
  o.shift = s.shift;
  return o;
}

const SolverType& line_multigrid_type() {
  static const LineMultigridType type;
  return type;
}

}  // namespace bouss
