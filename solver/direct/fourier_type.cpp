// The direct Fourier-tridiagonal solve's entry in the registry (solver/registry.hpp).
#include <fmt/format.h>

#include "solver/direct/fourier_solver.hpp"
#include "solver/direct/pencil_transform.hpp"
#include "solver/direct/slab_transform.hpp"
#include "solver/registry.hpp"
#include "solver/walls_in_z.hpp"

namespace bouss {
namespace {

// Whether the spectrum is real (a walled or stretched horizontal axis) or complex (a periodic
// box), and whether the solve on `block` runs on pencils (solver/direct/pencil_transform.hpp):
// a grid cut along y alone; FourierSolver's own rule.
bool real_spectrum(const PressureGrid& g) { return g.stretched_xy || !g.periodic_x || !g.periodic_y; }
bool y_split(const PressureGrid& g, const Grid& block) {
  return FourierSolver<double>::splits_y(block, g.stretched_xy);
}
bool on_pencils(const PressureGrid& g, const Grid& block) {
  return !y_split(g, block) && PencilTransform<double>::takes(block, real_spectrum(g));
}

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
  bool transposes_across_ranks() const override { return true; }
  // Every box through the slab or pencil transposes, on any rank count.
  bool solves_on_blocks(const PressureGrid&, int) const override { return true; }
  // The ranks cut y alone, where its rows and x modes go round: pencils move the fields
  // once each way a pass, slabs twice (the halos of a 1 x P grid exchange as many cells as the
  // squarest grid's up to 4 ranks of a square box).
  std::array<int, 2> process_grid(const PressureGrid& g, int ranks) const override {
    if (!g.periodic_z && PencilTransform<double>::fits(g.n, ranks, real_spectrum(g))) return {1, ranks};
    return {0, 0};
  }
  std::string gathered_because() const override { return "never"; }
  bool starts_from_guess() const override { return false; }
  const char* iteration_unit() const override { return "passes"; }
  int default_check_interval(const Backend&) const override { return 10; }
  std::string describe(const SolverContext& c) const override {
    const char* transposed =
        y_split(c.pressure, c.block)
            ? "; x and z transformed on the blocks, each mode's y line solved across the ranks by its blocks' ends (one "
              "all-gather of the ends a pass)"
        : on_pencils(c.pressure, c.block)
            ? "; x transformed on the blocks, y on bands of x modes over the ranks (one all-to-all each way a pass)"
            : "; transposed through z slabs and bands of modes over the ranks (two all-to-alls each way a pass)";
    if (c.pressure.stretched_xy)
      return fmt::format("direct solve (x and y through their eigenbases as {} matrix products, a tridiagonal solve "
                         "per horizontal mode){}{}",
                         c.backend.is_cuda() ? "cuBLAS" : "BLAS", c.single() ? " (fp32)" : " (fp64)",
                         c.ranks() ? transposed : "");
    const char* library = c.backend.is_cuda() ? "cuFFT" : "FFTW";
    const auto kind = [](bool periodic) { return periodic ? "Fourier" : "cosine (walls)"; };
    const std::string method =
        c.pressure.periodic_x && c.pressure.periodic_y
            ? fmt::format("Fourier-tridiagonal direct solve ({} {} transforms", library,
                          on_pencils(c.pressure, c.block) || y_split(c.pressure, c.block) ? "line" : "plane")
            : fmt::format("direct solve ({} transforms, x {}, y {}", library, kind(c.pressure.periodic_x),
                          kind(c.pressure.periodic_y));
    return fmt::format("{}, a tridiagonal solve per horizontal mode){}{}", method, c.single() ? " (fp32)" : " (fp64)",
                       c.ranks() ? transposed : "");
  }
  bool fixed_passes(const SolverContext&) const override { return true; }
  // The plane transforms' work area: of the block, or of this rank's slab (none where it
  // holds no level), with a real-to-real one's own arrays there.
  std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const override {
    const bool cut = grid.decomposition && grid.decomposition->ranks() > 1;
    const Layout planes = cut ? SlabTransform<double>::slab_layout(grid) : grid.layout;
    const bool has_planes = planes.n[2] > 0;
    // On the blocks of every grid (never gathered), with the step's lent arrays.
    const bool stretched = c.pressure.stretched_xy, walled = !c.pressure.periodic_x || !c.pressure.periodic_y;
    const double own = FourierSolver<double>::estimate_memory(grid, c.value_bytes, true, stretched || walled, stretched);
    // The y lines cut over the ranks: the x and z line transforms' work areas.
    if (cut && y_split(c.pressure, grid))
      return {own + (c.single() ? YSplitSolve<float>::line_work_bytes(c.backend, grid)
                                : YSplitSolve<double>::line_work_bytes(c.backend, grid)),
              0.0};
    // Pencils: the line transforms' work areas (twiddles, matrices; the x lines themselves in
    // the lent arrays).
    if (cut && on_pencils(c.pressure, grid)) {
      const bool real = real_spectrum(c.pressure);
      const int pieces = PencilTransform<double>::default_pieces(grid, c.value_bytes, real);
      return {own + (c.single() ? PencilTransform<float>::line_work_bytes(c.backend, grid, pieces, real, stretched)
                                : PencilTransform<double>::line_work_bytes(c.backend, grid, pieces, real, stretched)),
              0.0};
    }
    // One rank's mode lines' stored reciprocal pivots (a value per cell); under ranks the
    // band's, in `own`, and the slab's plane transform's own arrays: the eigenbases' staging
    // array, the cosine transforms' staging array and half spectrum.
    const double cells = double(planes.cells()) * c.value_bytes;
    const double pivots = cut ? 0.0 : double(grid.layout.cells()) * c.value_bytes;
    // Stretched x or y: the eigenbases' matrices and the products' work area, the pivots.
    if (stretched)
      return {own + pivots + (cut ? cells : 0.0) +
                  (!has_planes ? 0.0
                   : c.single() ? PlaneEigen<float>::work_bytes(c.backend, planes)
                                : PlaneEigen<double>::work_bytes(c.backend, planes)),
              0.0};
    // A walled box: the plane transforms' work area (one rank's staging array is c''s) and the
    // pivots.
    if (walled)
      return {own + pivots + (cut ? cells + 2.0 * double(spectrum_size(planes)) * c.value_bytes : 0.0) +
                  (!has_planes ? 0.0
                   : double(c.single() ? PlaneCosine<float>::work_bytes(c.backend, planes)
                                       : PlaneCosine<double>::work_bytes(c.backend, planes))),
              0.0};
    return {own + (!has_planes ? 0.0
                   : double(c.single() ? plane_fft_work_bytes<float>(c.backend, planes)
                                       : plane_fft_work_bytes<double>(c.backend, planes))),
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
