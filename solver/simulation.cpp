#include "solver/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "grid/field_ops.hpp"

namespace bouss {

namespace {

// Diffusive stability of AB2: dt * max(nu, kappa) * sum(1/h^2) <= this bound
// (AB2's real-axis stability limit is dt*lambda <= 1 with lambda = 4 nu sum(1/h^2); 0.2
// keeps a margin of 0.8 of it).
constexpr Real diffusive_number = 0.2;

// Uniform deviate in [-1, 1] from a counter (splitmix64): the same field on every backend
// and machine for a given seed.
Real noise(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + n + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return Real(z >> 11) * (Real(2) / Real(1ull << 53)) - 1;
}

std::array<Real, 3> lengths(const Case& c) { return {c.length(0), c.length(1), c.length(2)}; }
std::array<Real, 3> origins(const Case& c) { return {c.extent[0][0], c.extent[1][0], c.extent[2][0]}; }

}  // namespace

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

Simulation::Simulation(const Case& c, const Backend& backend)
    : case_(c),
      backend_(backend),
      grid_(Grid::make(c.n, origins(c), lengths(c))),
      bc_(flow_conditions(c)) {
  coeffs_.nu = c.physics.nu;
  coeffs_.kappa = c.physics.kappa;
  coeffs_.b_T = c.physics.buoyancy;
  coeffs_.T_ref = c.physics.reference_temperature;
  const Layout& L = grid_.layout;
  for (int comp = 0; comp < 4; ++comp)
    unknown_[comp] = unknown_box(L, comp == 3 ? Stagger::centre : Stagger(comp + 1), bc_.flow[comp]);
  now_ = FlowFields::make(backend_, L, "");
  next_ = FlowFields::make(backend_, L, " (next)");
  G_ = FlowFields::make(backend_, L, " tendency");
  phi_ = Field<Real>(backend_, L, Stagger::centre, "p");
  rhs_ = Field<Real>(backend_, L, Stagger::centre, "div u*/dt");
  for (int comp = 0; comp < 4; ++comp) {
    fill(now_[comp], 0);
    fill(next_[comp], 0);
    fill(G_[comp], 0);  // AB2's b = 0 on the first step must not meet NaN
  }
  fill(phi_, 0);
  fill(rhs_, 0);
  mg_ = std::make_unique<Multigrid>(backend_, grid_, bc_.pressure, multigrid_options(c.pressure, backend_));
  set_initial_condition();
}

// A host loop over cells at start-up only: T is built on the host and copied once.
void Simulation::set_initial_condition() {
  const Layout& L = grid_.layout;
  const InitialCondition& ic = case_.initial;
  std::vector<Real> T(L.size, 0);
  const Real z0 = case_.extent[2][0], H = case_.length(2);
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) {
        const Real z = grid_.coordinate(Stagger::centre, 2, k);
        Real value = ic.value;
        if (ic.profile != TemperatureProfile::uniform)
          value = ic.bottom + (ic.top - ic.bottom) * (z - z0) / H;
        if (ic.perturbation_shape == PerturbationShape::random) {
          const std::uint64_t cell = std::uint64_t(i) + std::uint64_t(L.n[0]) * (j + std::uint64_t(L.n[1]) * k);
          value += ic.perturbation_amplitude * noise(ic.seed, cell);
        } else {
          const Real x = grid_.coordinate(Stagger::centre, 0, i) - case_.extent[0][0];
          const Real y = grid_.coordinate(Stagger::centre, 1, j) - case_.extent[1][0];
          value += ic.perturbation_amplitude * std::sin(M_PI * (z - z0) / H) *
                   std::cos(2 * M_PI * ic.mode[0] * x / case_.length(0)) *
                   std::cos(2 * M_PI * ic.mode[1] * y / case_.length(1));
        }
        T[L.origin + L.index(i, j, k)] = value;
      }
  now_.T.from_host(T);
  fill_all_ghosts();
}

void Simulation::fill_flow_ghosts(int components) {
  Field<Real>* fields[max_fill_fields];
  const FieldBC* bcs[max_fill_fields];
  for (int comp = 0; comp < components; ++comp) {
    fields[comp] = &now_[comp];
    bcs[comp] = &bc_.flow[comp];
  }
  fill_ghosts(fields, bcs, components, grid_.h);
}

void Simulation::fill_all_ghosts() { fill_flow_ghosts(4); }

Real Simulation::next_dt() const {
  Real dt;
  if (case_.time.dt) {
    dt = *case_.time.dt;
  } else {
    Real inv_h2 = 0;
    for (int a = 0; a < 3; ++a) inv_h2 += 1 / (grid_.h[a] * grid_.h[a]);
    const Real diffusivity = std::max(coeffs_.nu, coeffs_.kappa);
    dt = diffusivity > 0 ? diffusive_number / (diffusivity * inv_h2) : std::numeric_limits<Real>::infinity();
    const Real rate = advective_rate(grid_, now_);
    if (rate > 0) dt = std::min(dt, Real(case_.time.cfl) / rate);
    if (!std::isfinite(dt))
      throw std::runtime_error("no time step limit: the fluid is at rest and nu = kappa = 0; set time.dt");
  }
  if (case_.time.end) {
    const Real left = *case_.time.end - time_;
    // Land on the end time; avoid a sliver of a last step by stretching the one before.
    if (left <= dt * (1 + 1e-12)) dt = left;
    else if (left < 1.5 * dt) dt = left / 2;
  }
  return dt;
}

bool Simulation::finished() const {
  if (case_.time.steps && step_ >= *case_.time.steps) return true;
  if (case_.time.end && time_ >= *case_.time.end * (1 - 1e-14)) return true;
  return false;
}

void Simulation::step() {
  const Real dt = next_dt();
  const AB2Coefficients ab = AB2Coefficients::make(dt, dt_old_, step_ == 0);
  advance_ab2(grid_, coeffs_, dt, ab, now_, G_, next_, unknown_);
  now_.swap(next_);
  fill_all_ghosts();
  project(dt);
  if (!solve_.converged && !std::isfinite(solve_.residual_history.back()))
    throw std::runtime_error("step " + std::to_string(step_ + 1) + ": the pressure solve diverged (NaN); "
                             "the run is unstable: lower time.cfl or time.dt");
  time_ += dt;
  dt_old_ = dt;
  ++step_;
}

void Simulation::project(Real dt) {
  divergence(grid_, now_, rhs_, 1 / dt);
  solve_ = mg_->solve(phi_, rhs_, case_.pressure.tolerance);
  subtract_gradient(grid_, phi_, dt, now_, unknown_);
  fill_flow_ghosts(3);  // the velocity
}

Diagnostics Simulation::diagnostics() const {
  Diagnostics d;
  d.kinetic_energy = kinetic_energy(grid_, now_);
  d.max_divergence = max_abs_divergence(grid_, now_);
  d.max_velocity = max_abs_velocity(grid_, now_);
  if (has_plates())
    d.nusselt = nusselt_numbers(grid_, now_, coeffs_.kappa, case_.faces[4].temperature_value,
                                case_.faces[5].temperature_value);
  return d;
}

bool Simulation::has_plates() const {
  const FaceCondition &bottom = case_.faces[4], &top = case_.faces[5];
  return bottom.temperature == TemperatureBC::fixed && top.temperature == TemperatureBC::fixed &&
         bottom.temperature_value != top.temperature_value && coeffs_.kappa > 0;
}

// Traffic model, in units of one array F = cells * sizeof(Real), each array counted once
// per pass (an ideal cache for the stencil neighbours), plus the multigrid's own model
// (Multigrid::bytes_per_cycle, bytes_fmg):
//   advance_ab2       u, v, w: read u v w + G, write G + next: 6F each; w also reads T: +1F;
//                     T: read u v w T + G, write G + next: 7F                     -> 26F
//   divergence        read u v w, write rhs                                          4F
//   before the cycles sum(b) + b -= mean + max|b| + x -= mean afterwards             6F
//   subtract_gradient per component read phi + read/write u: 9F
//   dt                advective rate reads u v w: 3F
double Simulation::bytes_per_step(const SolveStats& s) const {
  const double F = double(grid_.layout.cells()) * sizeof(Real);
  const int v_cycles = s.cycles - (s.fmg ? 1 : 0);
  return F * (26 + 4 + 6 + 9 + (case_.time.dt ? 0 : 3)) + (s.fmg ? mg_->bytes_fmg() : 0) +
         (v_cycles + (s.fmg ? 0 : 1)) * mg_->bytes_per_cycle();
}

std::vector<double> Simulation::host_values(const std::string& name) const {
  const Field<Real>* f = nullptr;
  if (name == "T") f = &now_.T;
  else if (name == "u") f = &now_.u;
  else if (name == "v") f = &now_.v;
  else if (name == "w") f = &now_.w;
  else if (name == "p") f = &phi_;
  else throw std::invalid_argument("unknown output field \"" + name + "\"");
  const std::vector<Real> all = f->to_host();
  const Layout& L = grid_.layout;
  const Box box = L.interior(f->stagger());
  std::vector<double> out;
  out.reserve(box.cells());
  for (int k = 0; k < box.hi[2]; ++k)
    for (int j = 0; j < box.hi[1]; ++j)
      for (int i = 0; i < box.hi[0]; ++i) out.push_back(double(all[L.origin + L.index(i, j, k)]));
  return out;
}

}  // namespace bouss
