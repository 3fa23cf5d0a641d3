// The direct Fourier-tridiagonal solve's entry in the registry (solver/registry.hpp).
#include <fmt/format.h>

#include "grid/z_tables.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/direct/slab_transform.hpp"
#include "solver/registry.hpp"
#include "solver/walls_in_z.hpp"

namespace bouss {
namespace {

class FourierType final : public SolverType {
 public:
  std::string_view name() const override { return "direct"; }
  // Its name before it took walled boxes too: cases and checkpoints that say "fft".
  std::vector<std::string_view> aliases() const override { return {"fft"}; }
  std::optional<SolverRefusal> refuses(const PressureGrid& g) const override {
    if (const auto why = FourierSolver<double>::refuses(g)) return SolverRefusal{*why, true};
    return refuses_periodic_z(name(), g);
  }
  std::optional<std::string> suits(const PressureGrid& g) const override {
    if (g.periodic_z) return std::nullopt;
    if (g.stretched_xy) return "x or y stretched, walls in z: one direct solve through their eigenbases (matrix products)";
    if (g.periodic_x && g.periodic_y) return "x and y periodic, walls in z: one direct Fourier-tridiagonal solve";
    return "walls in z and in x or y: one direct solve, cosine transforms along the walled axes";
  }
  // The periodic planes through the slab transposes; a walled box whole on rank 0.
  bool solves_on_blocks(const PressureGrid& g, int ranks) const override {
    return g.periodic_x && g.periodic_y && !g.stretched_xy && SlabTransform<double>::applies(g.n, ranks);
  }
  std::string gathered_because() const override {
    return "its transposes need x and y periodic, a z level and a y row per rank";
  }
  bool starts_from_guess() const override { return false; }
  const char* iteration_unit() const override { return "passes"; }
  int default_check_interval(const Backend&) const override { return 10; }
  std::string describe(const SolverContext& c) const override {
    const bool gathered = c.ranks() && !solves_on_blocks(c.pressure, c.backend.ranks().size());
    if (c.pressure.stretched_xy)
      return fmt::format("direct solve (x and y through their eigenbases as {} matrix products, a tridiagonal solve "
                         "per horizontal mode){}",
                         c.backend.is_cuda() ? "cuBLAS" : "BLAS", c.single() ? " (fp32)" : " (fp64)");
    const char* library = c.backend.is_cuda() ? "cuFFT" : "FFTW";
    const auto kind = [](bool periodic) { return periodic ? "Fourier" : "cosine (walls)"; };
    const std::string method =
        c.pressure.periodic_x && c.pressure.periodic_y
            ? fmt::format("Fourier-tridiagonal direct solve ({} plane transforms", library)
            : fmt::format("direct solve ({} transforms, x {}, y {}", library, kind(c.pressure.periodic_x),
                          kind(c.pressure.periodic_y));
    return fmt::format("{}, a tridiagonal solve per horizontal mode){}{}", method, c.single() ? " (fp32)" : " (fp64)",
                       c.ranks() && !gathered ? "; transposed through z slabs and bands of modes over the ranks (two "
                                                "all-to-alls each way a pass)"
                                              : "");
  }
  bool fixed_passes(const SolverContext&) const override { return true; }
  // The plane transforms' work area: of the block, or of this rank's slab.
  std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const override {
    const Layout planes = grid.decomposition && grid.decomposition->ranks() > 1 ? SlabTransform<double>::slab_layout(grid)
                                                                                : grid.layout;
    // Gathered onto rank 0 (solver/gathered_solver.hpp) it solves without lent arrays (its own),
    // on a grid of its own (its own z tables).
    const bool lent = !(c.ranks() && !solves_on_blocks(c.pressure, c.backend.ranks().size()));
    const double own = FourierSolver<double>::estimate_memory(grid, c.value_bytes, lent) +
                       (lent ? 0.0 : stencil_table_bytes(grid.layout, c.pressure.stretched_xy));
    // Stretched x or y: the eigenbases' matrices and the products' work area, the pivots.
    if (c.pressure.stretched_xy)
      return {own + double(grid.layout.cells()) * c.value_bytes +
                  (c.single() ? PlaneEigen<float>::work_bytes(c.backend, grid.layout)
                              : PlaneEigen<double>::work_bytes(c.backend, grid.layout)),
              0.0};
    // A walled box: the plane transforms' work area (their staging array is c''s) and the
    // mode lines' stored reciprocal pivots (a value per cell).
    if (!c.pressure.periodic_x || !c.pressure.periodic_y)
      return {own + double(grid.layout.cells()) * c.value_bytes +
                  double(c.single() ? PlaneCosine<float>::work_bytes(c.backend, grid.layout)
                                    : PlaneCosine<double>::work_bytes(c.backend, grid.layout)),
              0.0};
    return {own + double(c.single() ? plane_fft_work_bytes<float>(c.backend, planes)
                                  : plane_fft_work_bytes<double>(c.backend, planes)),
            0.0};
  }
  std::unique_ptr<PressureSolver<double>> make_double(const Backend& b, const Grid& g, const FieldBC& bc,
                                                      const SolverSettings&) const override {
    return std::make_unique<FourierSolver<double>>(b, g, bc);
  }
  std::unique_ptr<PressureSolver<float>> make_float(const Backend& b, const Grid& g, const FieldBC& bc,
                                                    const SolverSettings&) const override {
    return std::make_unique<FourierSolver<float>>(b, g, bc);
  }
};

}  // namespace

const SolverType& fourier_type() {
  static const FourierType type;
  return type;
}

}  // namespace bouss
