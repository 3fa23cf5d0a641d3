// Where the case meets the pressure solvers (model/pressure_plan.hpp).
#include "model/pressure_plan.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "grid/shape_rules.hpp"
#include "model/simulation.hpp"

namespace bouss {

PressureGrid pressure_grid(const Case& c) {
  PressureGrid g;
  g.n = c.n;
  g.h = make_grid(c, sizeof(double)).smallest_spacings();  // no allocation: the geometry alone
  g.stretched = c.stretched(2);
  g.stretched_xy = c.stretched(0) || c.stretched(1);
  g.periodic_x = c.periodic(0);
  g.periodic_y = c.periodic(1);
  g.periodic_z = c.periodic(2);
  g.ranks = c.ranks;
  return g;
}

SolverSettings solver_settings(const PressureParams& p) {
  SolverSettings s;
  s.max_cycles = p.max_cycles;
  s.pre_sweeps = p.pre_sweeps;
  s.post_sweeps = p.post_sweeps;
  s.omega = p.omega;
  s.fmg = p.fmg;
  s.mixed_precision = p.mixed_precision;
  s.cuda_graphs = p.cuda_graphs;
  s.check_interval = p.check_interval;
  s.cpu_coarse_cells = p.cpu_coarse_cells;
  s.agglomerate_below = p.agglomerate_below;
  return s;
}

PressurePlan plan_pressure(const Case& c) {
  const PressureGrid g = pressure_grid(c);
  PressurePlan plan;
  try {
    plan.choice = choose_solver(c.pressure.solver, g);
  } catch (const std::invalid_argument& e) {
    throw CaseError(c.source + ": /pressure/solver: " + e.what());
  }
  if (const auto problem = plan.type().refuses(g))
    throw CaseError(c.source + (problem->solver_at_fault ? ": /pressure/solver: " : ": /grid/n: ") + problem->message);
  plan.settings = solver_settings(c.pressure);
  plan.tolerance = c.pressure.tolerance;
  plan.extrapolates = c.pressure.first_guess == "extrapolated" && plan.type().starts_from_guess();
  return plan;
}

namespace {
SolverContext context(const Case& c, const PressurePlan& plan, const Backend& backend) {
  const Grid whole = make_grid(c, sizeof(double));  // the geometry alone
  const Grid block = backend.ranks().alone() ? whole : whole.part(decompose(c, backend.ranks()));
  return SolverContext{backend, whole, block, plan.settings, value_bytes(c.precision), plan.tolerance, pressure_grid(c)};
}
}  // namespace

bool gathers_pressure(const Case& c, const PressurePlan& plan, const Communicator& ranks) {
  return !ranks.alone() && !plan.type().solves_on_blocks(pressure_grid(c), ranks.size());
}

std::string describe_pressure(const Case& c, const PressurePlan& plan, const Backend& backend) {
  const SolverContext ctx = context(c, plan, backend);
  const SolverType& type = plan.type();
  const int every = type.check_interval(plan.settings, backend);
  // Under several ranks: on the blocks, or gathered onto rank 0 and checked every step
  // (solver/gathered_solver.hpp).
  const bool gathered = gathers_pressure(c, plan, backend.ranks());
  const std::string cadence = type.fixed_passes(ctx) && every > 1 && !gathered
                                  ? fmt::format(", residual checked every {} steps (the passes fixed between)", every)
                                  : "";
  const std::string why = std::string(plan.extrapolates ? ", first guess extrapolated from the last two steps" : "") +
                          (gathered ? ", gathered and solved whole on rank 0 (" + type.gathered_because() + ")" : "") +
                          (plan.choice.automatic ? " [auto: " + plan.choice.reason + "]" : "");
  return type.describe(ctx) + cadence + why;
}

std::pair<double, double> pressure_memory(const Case& c, const PressurePlan& plan, const Backend& backend,
                                          const Grid& grid) {
  return plan.type().memory(context(c, plan, backend), grid);
}

void check_grid_shape(const std::array<int, 3>& n, const std::array<bool, 3>& periodic, const std::string& where) {
  auto problem = grid_shape_problem({n[0], n[1], n[2]}, periodic);
  if (!problem) {  // the point multigrid's rule
    PressureGrid g;
    g.n = n;
    g.periodic_z = periodic[2];
    if (const auto refusal = point_multigrid_type().refuses(g)) problem = refusal->message;
  }
  if (problem) throw CaseError(where + ": " + *problem);
}

}  // namespace bouss
