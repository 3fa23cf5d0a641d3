#include "model/simulation.hpp"

#include "model/flow_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "model/pressure_plan.hpp"
#include "physics/time_step.hpp"
#include "config/units.hpp"

namespace bouss {

namespace {

std::array<double, 3> lengths(const Case& c) { return {c.length(0), c.length(1), c.length(2)}; }
std::array<double, 3> origins(const Case& c) { return {c.extent[0][0], c.extent[1][0], c.extent[2][0]}; }

// Bytes of one value of the case's fields.
std::size_t field_bytes(const Case& c) { return value_bytes(c.precision); }

}  // namespace

Grid make_grid(const Case& c, std::size_t elem_bytes) {
  Grid g = Grid::make(c.n, origins(c), lengths(c), 1, elem_bytes);
  for (int a = 0; a < 3; ++a)
    if (c.stretched(a)) g.stretch(a, c.axis_faces[a], c.periodic(a));
  return g;
}

StepLimits step_limits(const Case& c, const Grid& g) {
  StepLimits lim;
  const std::array<double, 3> h = g.smallest_spacings();
  double smallest = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a)
    if (c.n[a] > 1) smallest = std::min(smallest, h[a]);
  lim.fixed_dt = c.time.dt ? double(*c.time.dt) : 0.0;
  lim.diffusive_dt = diffusive_time_step(h, c.physics.nu, c.physics.kappa);
  lim.buoyancy_dt = buoyancy_time_step(smallest, c.physics.buoyancy, temperature_contrast(c), double(c.time.cfl));
  lim.cfl = double(c.time.cfl);
  lim.has_end = bool(c.time.end);
  lim.end = c.time.end ? double(*c.time.end) : 0.0;
  return lim;
}

Decomposition decompose(const Case& c, const Communicator& ranks) {
  // Unnamed (--decomposition), the process grid the pressure solver asks for, else the halos'.
  std::array<int, 2> dims = c.decomposition;
  if (dims == std::array<int, 2>{0, 0} && !ranks.alone()) {
    try {
      dims = plan_pressure(c).type().process_grid(pressure_grid(c), ranks.size());
    } catch (const CaseError&) {
      // a solver the case cannot have: plan_pressure says so where the run plans
    }
  }
  try {
    return Decomposition::make(c.n, {c.periodic(0), c.periodic(1), c.periodic(2)}, ranks.size(), ranks.rank(), dims);
  } catch (const std::invalid_argument& e) {
    // A refused --decomposition names the flag; a grid too small for the ranks, the case's /grid/n.
    const std::string what = e.what();
    throw CaseError(what.rfind("--decomposition", 0) == 0 ? what : c.source + ": /grid/n: " + what);
  }
}

namespace {
// This rank's block of the case's grid, laid out for elem_bytes values.
Grid block_of(const Case& c, std::size_t elem_bytes, const Communicator& ranks) {
  const Grid whole = make_grid(c, elem_bytes);
  return ranks.alone() ? whole : whole.part(decompose(c, ranks));
}
}  // namespace

Grid rank_grid(const Case& c, const Communicator& ranks) { return block_of(c, field_bytes(c), ranks); }

namespace {
// The conditions on this rank's block.
FlowConditions rank_conditions(const Case& c, const Grid& g) {
  const FlowConditions bc = flow_conditions(c, reference_profile(c));
  return g.decomposition ? bc.on_rank(*g.decomposition) : bc;
}
}  // namespace

SimulationMemory simulation_memory(const Case& c, const Backend& backend) {
  const std::size_t elem = field_bytes(c);
  // This rank's block (the whole grid on one rank).
  const Grid g = rank_grid(c, backend.ranks()), whole = g.whole();
  const double array = double(g.layout.size) * elem;
  const PressurePlan plan = plan_pressure(c);
  SimulationMemory m;
  // now, next and tendencies (u, v, w, T each) and phi (and phi a step before, where it is
  // extrapolated; the divergence lives in next's T between the steps); the state check.
  // + the state check's value, the step's clock and the z tables
  m.backend_bytes = (13 + plan.extrapolates) * array + sizeof(double) + sizeof(StepClock) +
                    stencil_table_bytes(g.layout, g.stretched_horizontally());
  // Under several ranks rank 0 solves the pressure on the whole grid where the solver does not
  // work on blocks (solver/gathered_solver.hpp); the other ranks then hold none of it.
  const bool gathered = gathers_pressure(c, plan, backend.ranks());
  const bool gathers = gathered && backend.ranks().rank() == 0;
  const auto [solver_backend, solver_host] =
      gathered && !gathers ? std::pair<double, double>{0, 0} : pressure_memory(c, plan, backend, gathers ? whole : g);
  m.backend_bytes += solver_backend;
  if (gathers) m.backend_bytes += 2.0 * double(whole.layout.size) * elem;
  // pinned coarse levels; the host copies of the state check and the clock
  m.host_bytes = solver_host + sizeof(double) + sizeof(StepClock);
  return m;
}

Simulation::Simulation(const Case& c, const Backend& backend, std::size_t elem_bytes)
    : case_(c), pressure_(plan_pressure(c)), backend_(backend), grid_(block_of(c, elem_bytes, backend.ranks())),
      bc_(rank_conditions(c, grid_)) {
  coeffs_.nu = c.physics.nu;
  coeffs_.kappa = c.physics.kappa;
  coeffs_.b_T = c.physics.buoyancy;
  coeffs_.reference = reference_profile(c);
  for (int comp = 0; comp < 4; ++comp)
    unknown_[comp] = unknown_box(grid_.layout, comp == 3 ? Stagger::centre : Stagger(comp + 1), bc_.flow[comp]);
}

Simulation::~Simulation() = default;

bool Simulation::finished() const {
  if (case_.time.steps && step_ >= *case_.time.steps) return true;
  if (case_.time.end && time_ >= *case_.time.end * (1 - 1e-14)) return true;
  return false;
}

bool Simulation::has_plates() const {
  const FaceCondition &bottom = case_.faces[4], &top = case_.faces[5];
  return bottom.temperature == TemperatureBC::fixed && top.temperature == TemperatureBC::fixed &&
         bottom.temperature_value != top.temperature_value && coeffs_.kappa > 0;
}

std::vector<std::string> Simulation::state_names(const PressurePlan& plan) {
  const bool extrapolates = plan.extrapolates;
  std::vector<std::string> names;
  for (const FieldInfo& f : field_table())
    if (f.state && (extrapolates || f.name != std::string("p_previous"))) names.push_back(f.name);
  return names;
}

std::unique_ptr<Simulation> make_simulation(const Case& c, const Backend& backend) {
  if (c.precision == Precision::single_precision) return std::make_unique<FlowSimulation<float>>(c, backend);
  return std::make_unique<FlowSimulation<double>>(c, backend);
}

}  // namespace bouss
