#include "solver/simulation.hpp"
#include "solver/stream_output.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "io/file_util.hpp"
#include "io/staging_ring.hpp"
#include "physics/time_step.hpp"

namespace bouss {

namespace {

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

MemoryEstimate estimate_memory(const Case& c, const Backend& backend) {
  const Grid g = Grid::make(c.n, origins(c), lengths(c));
  const double array = double(g.layout.size) * sizeof(Real);
  MemoryEstimate m;
  // now, next and tendencies (u, v, w, T each), phi and the divergence; the state check.
  m.backend_bytes = 14 * array + sizeof(Real);
  const auto [mg_backend, mg_host] = Multigrid::estimate_memory(backend, g, multigrid_options(c.pressure, backend));
  m.backend_bytes += mg_backend;
  m.host_bytes = mg_host + sizeof(Real);  // pinned coarse levels; the state check's host copy
  // One field's padded host copy and its interior values at a time for a snapshot, or a
  // checkpoint's arrays all together; the initial condition's host array before that.
  const double interior = double(g.layout.cells()) * sizeof(double) * 1.05;  // faces: n + 1 points
  const double snapshot = array + interior;
  const double checkpoint =
      c.checkpoint.enabled() ? array + double(Simulation::state_names().size()) * interior : 0;
  m.output_bytes = std::max(snapshot, checkpoint);
  // Each stream's staging ring (solver/stream_output.hpp, io/staging_ring.hpp).
  for (const OutputStream& s : c.output.streams) {
    const StreamPlan plan = plan_stream(c, s, g.layout);
    const auto [device, pinned] = StagingRing::memory(backend, plan.slot_bytes, plan.slots);
    m.output_device_bytes += backend.is_cuda() ? device : 0;
    m.output_bytes += backend.is_cuda() ? pinned : device;
  }
  return m;
}

void check_memory(const Case& c, const Backend& backend) {
  const MemoryEstimate m = estimate_memory(c, backend);
  // Reductions' scratch, CUDA graphs and the runtime's own allocations: a margin.
  constexpr double margin = 64.0 * (1 << 20);
  auto refuse = [&](const char* what, const char* who, double need, double have) {
    throw CaseError(c.source + ": /grid/n: the run needs " + format_bytes(need) + " of " + what + ", " + who +
                    " has " + format_bytes(have) + " free");
  };
  if (backend.is_cuda()) {
    const double device_free = double(backend.available_bytes());
    if (m.device_peak() + margin > device_free) refuse("GPU memory", "the device", m.device_peak() + margin, device_free);
  }
  const double host_free = double(Backend::host_available_bytes());
  if (m.host_peak(backend) + margin > host_free) refuse("host memory", "the host", m.host_peak(backend) + margin, host_free);
}

Simulation::Simulation(const Case& c, const Backend& backend)
    : case_(c),
      backend_(backend),
      grid_(Grid::make(c.n, origins(c), lengths(c))),
      bc_(flow_conditions(c)),
      state_rate_(backend) {
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

void Simulation::queue_state_check() {
  state_rate_into(grid_, now_, state_rate_.target());
  state_rate_.publish();
  checked_step_ = step_;
}

Real Simulation::checked_rate() const {
  const Real rate = state_rate_.get();
  if (!std::isfinite(rate))
    throw std::runtime_error("step " + std::to_string(checked_step_) + " (t = " + std::to_string(time_) +
                             "): the flow holds NaN or Inf values (u, v, w or T): the run blew up; "
                             "lower time.cfl or time.dt");
  return rate;
}

void Simulation::verify_state() const { checked_rate(); }

void Simulation::fill_flow_ghosts(int components) {
  Field<Real>* fields[max_fill_fields];
  const FieldBC* bcs[max_fill_fields];
  for (int comp = 0; comp < components; ++comp) {
    fields[comp] = &now_[comp];
    bcs[comp] = &bc_.flow[comp];
  }
  fill_ghosts(fields, bcs, components, grid_.h);
}

void Simulation::fill_all_ghosts() {
  fill_flow_ghosts(4);
  queue_state_check();
}

Real Simulation::next_dt() const {
  const Real dt = case_.time.dt ? Real(*case_.time.dt)
                                : stable_time_step(grid_.h, coeffs_.nu, coeffs_.kappa, Real(case_.time.cfl), checked_rate());
  return clip_to_end(dt, time_, case_.time.end);
}

bool Simulation::finished() const {
  if (case_.time.steps && step_ >= *case_.time.steps) return true;
  if (case_.time.end && time_ >= *case_.time.end * (1 - 1e-14)) return true;
  return false;
}

void Simulation::step() {
  const Real dt = next_dt();  // with an adaptive dt this reads, and verifies, the state check
  const AB2Coefficients ab = AB2Coefficients::make(dt, dt_old_, step_ == 0);
  advance_ab2(grid_, coeffs_, dt, ab, now_, G_, next_, unknown_);
  if (case_.time.dt) verify_state();  // a fixed dt: read now, with the device busy
  now_.swap(next_);
  fill_flow_ghosts(4);
  project_velocity(dt);
  if (!solve_.converged && !std::isfinite(solve_.residual_history.back()))
    throw std::runtime_error("step " + std::to_string(step_ + 1) + ": the pressure solve diverged (NaN); "
                             "the run is unstable: lower time.cfl or time.dt");
  time_ += dt;
  dt_old_ = dt;
  ++step_;
  queue_state_check();
}

void Simulation::project_velocity(Real dt) {
  divergence(grid_, now_, rhs_, 1 / dt);
  solve_ = mg_->solve(phi_, rhs_, case_.pressure.tolerance);
  subtract_gradient(grid_, phi_, dt, now_, unknown_);
  fill_flow_ghosts(3);  // the velocity
}

void Simulation::project(Real dt) {
  project_velocity(dt);
  queue_state_check();
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

const Field<Real>& Simulation::field(const std::string& name) const {
  if (name == "T") return now_.T;
  if (name == "u") return now_.u;
  if (name == "v") return now_.v;
  if (name == "w") return now_.w;
  if (name == "p") return phi_;
  if (name == "G_u") return G_.u;
  if (name == "G_v") return G_.v;
  if (name == "G_w") return G_.w;
  if (name == "G_T") return G_.T;
  throw std::invalid_argument("unknown field \"" + name + "\"");
}

Field<Real>& Simulation::field(const std::string& name) {
  return const_cast<Field<Real>&>(static_cast<const Simulation&>(*this).field(name));
}

std::vector<double> Simulation::host_values(const std::string& name) const { return interior_values(field(name)); }

const std::vector<std::string>& Simulation::state_names() {
  static const std::vector<std::string> names = {"u", "v", "w", "T", "p", "G_u", "G_v", "G_w", "G_T"};
  return names;
}

void Simulation::restore(const std::vector<std::pair<std::string, std::vector<double>>>& arrays, Real time,
                         Real last_dt, long steps, int last_cycles) {
  for (const std::string& name : state_names()) {
    auto it = std::find_if(arrays.begin(), arrays.end(), [&](const auto& a) { return a.first == name; });
    if (it == arrays.end()) throw std::invalid_argument("restore: the state lacks \"" + name + "\"");
    set_interior_values(field(name), it->second);
  }
  // The ghosts as the step leaves them: the flow's from one fill of all four fields,
  // the pressure's from the solver's own fill at the end of its solve.
  fill_ghosts(phi_, bc_.pressure, grid_.h);
  time_ = time;
  dt_old_ = last_dt;
  step_ = steps;
  solve_ = SolveStats{};
  solve_.cycles = last_cycles;
  solve_.converged = true;
  solve_.residual_history = {0};
  fill_all_ghosts();
}

}  // namespace bouss
