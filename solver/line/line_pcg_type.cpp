// The line-preconditioned CG's entry in the registry (solver/registry.hpp).
#include <fmt/format.h>

#include "solver/line/line_pcg.hpp"
#include "solver/registry.hpp"
#include "solver/walls_in_z.hpp"

namespace bouss {
namespace {

class LinePcgType final : public SolverType {
 public:
  std::string_view name() const override { return "line_pcg"; }
  std::optional<SolverRefusal> refuses(const PressureGrid& g) const override {
    if (auto why = refuses_stretched_xy(name(), g)) return why;
    return refuses_periodic_z(name(), g);
  }
  std::optional<std::string> suits(const PressureGrid&) const override { return std::nullopt; }  // named only
  bool solves_on_blocks(const PressureGrid&, int) const override { return true; }
  std::string gathered_because() const override { return ""; }
  bool solves_shifted() const override { return true; }
  const char* iteration_unit() const override { return "iterations"; }
  int iterations_per_cycle() const override { return line_pcg_iterations_per_cycle; }
  std::string describe(const SolverContext& c) const override {
    return fmt::format("line-preconditioned CG (vertical lines solved exactly) to {:g}{}, at most {} iterations",
                       c.tolerance, c.single() ? " (fp32)" : " (fp64)", line_pcg_options(c.settings).max_iterations);
  }
  std::pair<double, double> memory(const SolverContext& c, const Grid& grid) const override {
    return {LinePcg<double>::estimate_memory(grid, c.value_bytes, line_pcg_options(c.settings).max_iterations), 0.0};
  }
  std::unique_ptr<PressureSolver<double>> make_double(const Backend& b, const Grid& g, const FieldBC& bc,
                                                      const SolverSettings& s) const override {
    return std::make_unique<LinePcg<double>>(b, g, bc, line_pcg_options(s));
  }
  std::unique_ptr<PressureSolver<float>> make_float(const Backend& b, const Grid& g, const FieldBC& bc,
                                                    const SolverSettings& s) const override {
    return std::make_unique<LinePcg<float>>(b, g, bc, line_pcg_options(s));
  }
};

}  // namespace

const SolverType& line_pcg_type() {
  static const LinePcgType type;
  return type;
}

}  // namespace bouss
