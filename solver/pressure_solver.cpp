// The pressure solvers behind one interface (solver/pressure_solver.hpp).
#include "solver/pressure_solver.hpp"

#include <fmt/format.h>

#include "solver/multigrid.hpp"

namespace bouss {

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
