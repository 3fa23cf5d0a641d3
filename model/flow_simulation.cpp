#include "model/flow_simulation.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "physics/profiles.hpp"
#include "physics/time_average.hpp"
#include "physics/time_step.hpp"

namespace bouss {

namespace {

// Uniform deviate in [-1, 1] from a counter (splitmix64): the same field on every backend
// and machine for a given seed.
double noise(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + n + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / double(1ull << 53)) - 1;
}

}  // namespace

template <class R>
FlowSimulation<R>::FlowSimulation(const Case& c, const Backend& backend)
    : Simulation(c, backend, sizeof(R)), state_rate_(backend), clock_(backend) {
  grid_.z_view<R>(backend_);  // the z tables, before any kernel (or graph capture) needs them
  const Layout& L = grid_.layout;
  now_ = FlowFields<R>::make(backend_, L, "");
  next_ = FlowFields<R>::make(backend_, L, " (next)");
  G_ = FlowFields<R>::make(backend_, L, " tendency");
  phi_ = Field<R>(backend_, L, Stagger::centre, "p");
  for (int comp = 0; comp < 4; ++comp) {
    fill(now_[comp], 0);
    fill(next_[comp], 0);
    fill(G_[comp], 0);  // AB2's b = 0 on the first step must not meet NaN
  }
  fill(phi_, 0);
  pressure_solver_ = make_solver<R>(pressure_.type(), backend_, grid_, bc_.pressure, pressure_.settings);
  if (pressure_solver_->solves_in_fixed_passes())
    check_interval_ = pressure_.type().check_interval(pressure_.settings, backend_);
  if (pressure_.extrapolates) {
    phi_previous_ = Field<R>(backend_, L, Stagger::centre, "p (previous step)");
    fill(phi_previous_, 0);
  }
  limits_ = step_limits(c, grid_);
  write_clock(StepClock{});
  set_initial_condition();
}

// A host loop over cells at start-up only: theta = T - T_ref(z) is built on the host (in
// double, rounded to R once) and copied once.
template <class R>
void FlowSimulation<R>::set_initial_condition() {
  const Layout& L = grid_.layout;
  const InitialCondition& ic = case_.initial;
  std::vector<R> T(L.size, 0);
  const double z0 = case_.extent[2][0], H = case_.length(2);
  const std::array<int, 3> o = grid_.offset(), N = grid_.global_n();
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) {
        const double z = grid_.coordinate(Stagger::centre, 2, k);
        double value = ic.value;
        if (ic.profile == TemperatureProfile::linear || ic.profile == TemperatureProfile::conduction)
          value = ic.bottom + (ic.top - ic.bottom) * (z - z0) / H;
        if (ic.profile == TemperatureProfile::lock) {
          const double x = grid_.coordinate(Stagger::centre, 0, i);
          value = 0.5 * (ic.left + ic.right) + 0.5 * (ic.left - ic.right) * std::tanh((ic.position - x) / ic.thickness);
        }
        if (ic.perturbation_shape == PerturbationShape::random) {
          // Numbered over the whole grid: the same noise on any decomposition.
          const std::uint64_t cell = std::uint64_t(i + o[0]) + std::uint64_t(N[0]) * (j + o[1] + std::uint64_t(N[1]) * (k + o[2]));
          value += ic.perturbation_amplitude * noise(ic.seed, cell);
        } else {
          const double x = grid_.coordinate(Stagger::centre, 0, i) - case_.extent[0][0];
          const double y = grid_.coordinate(Stagger::centre, 1, j) - case_.extent[1][0];
          value += ic.perturbation_amplitude * std::sin(M_PI * (z - z0) / H) *
                   std::cos(2 * M_PI * ic.mode[0] * x / case_.length(0)) *
                   std::cos(2 * M_PI * ic.mode[1] * y / case_.length(1));
        }
        T[L.origin + L.index(i, j, k)] = R(value - coeffs_.reference.at(z));
      }
  now_.T.from_host(T);
  fill_all_ghosts();
}

template <class R>
void FlowSimulation<R>::queue_state_check() {
  if (level_sums_) state_rate_and_level_sums_into(grid_, now_, coeffs_.reference, state_rate_.target(), level_sums_);
  else state_rate_into(grid_, now_, state_rate_.target());
}

template <class R>
FlowSimulation<R>::~FlowSimulation() {
  if (!level_sums_) return;
  backend_.synchronize();
  backend_.deallocate(level_sums_);
}

template <class R>
void FlowSimulation<R>::keep_level_sums() {
  if (level_sums_ || !backend_.ranks().alone()) return;
  level_sums_ = backend_.allocate(level_sums_bytes(grid_.layout.n[2]));
  fixed_steps_run_ = false;  // the step's graph captures the state check
  queue_state_check();       // of the state now
}

template <class R>
double FlowSimulation<R>::checked_rate() const { return checked(state_rate_.read()); }

template <class R>
double FlowSimulation<R>::checked(double rate) const {
  if (!std::isfinite(rate)) throw std::runtime_error(blow_up_report());
  return rate;
}

// What the state check saw, for the one line of a blow-up: the fields of the current state
// that hold NaN or Inf on this rank's block, the least spread first (the pressure solve
// spreads a NaN of the velocity over the whole domain in one step; the temperature's stays
// near where it began), each with its cell count and the box of its bad cells; the last dt;
// the likely causes. A failure path: the fields are read back to the host and searched there.
template <class R>
std::string FlowSimulation<R>::blow_up_report() const {
  struct Bad {
    const char* name;
    std::size_t cells = 0;
    std::array<int, 3> lo{}, hi{};
    Stagger stagger;
  };
  std::vector<Bad> bad;
  for (int c = 0; c < 4; ++c) {
    Bad b{c == 0 ? "u" : c == 1 ? "v" : c == 2 ? "w" : "T", 0, {}, {}, Stagger::centre};
    b.stagger = field_named(b.name).stagger;
    const std::vector<double> values = interior_values(now_[c]);  // T - T_ref(z) for T: finite alike
    std::array<int, 3> n = grid_.layout.n;
    if (b.stagger != Stagger::centre) n[int(b.stagger) - 1] += 1;
    for (std::size_t p = 0; p < values.size(); ++p) {
      if (std::isfinite(values[p])) continue;
      const std::array<int, 3> at{int(p % std::size_t(n[0])), int(p / std::size_t(n[0]) % std::size_t(n[1])),
                                  int(p / (std::size_t(n[0]) * std::size_t(n[1])))};
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = b.cells ? std::min(b.lo[a], at[a]) : at[a];
        b.hi[a] = b.cells ? std::max(b.hi[a], at[a]) : at[a];
      }
      ++b.cells;
    }
    if (b.cells) bad.push_back(b);
  }
  std::stable_sort(bad.begin(), bad.end(), [](const Bad& a, const Bad& b) { return a.cells < b.cells; });
  std::string where;
  const std::array<int, 3> o = grid_.offset();
  for (const Bad& b : bad) {
    where += fmt::format("{}{} in {} cell{}", where.empty() ? "" : "; ", b.name, b.cells, b.cells == 1 ? "" : "s");
    if (&b != &bad.front()) continue;
    // Where the least spread field went bad: its cells' box, and that box's middle.
    std::array<double, 3> mid{};
    for (int a = 0; a < 3; ++a)
      mid[a] = 0.5 * (grid_.coordinate(b.stagger, a, b.lo[a]) + grid_.coordinate(b.stagger, a, b.hi[a]));
    where += fmt::format(" ({}..{}, {}..{}, {}..{}, about x = {:.4g}, y = {:.4g}, z = {:.4g})", b.lo[0] + o[0],
                         b.hi[0] + o[0], b.lo[1] + o[1], b.hi[1] + o[1], b.lo[2] + o[2], b.hi[2] + o[2], mid[0],
                         mid[1], mid[2]);
  }
  if (where.empty()) where = "not on this rank's block";
  const InitialCondition& ic = case_.initial;
  std::string causes;
  if (step_ <= 2)
    causes = fmt::format("it blew up at once: the initial state or the parameters (initial.perturbation.amplitude = "
                         "{:g}, the physics' coefficients nu = {:.3g}, kappa = {:.3g}, b_T = {:.3g}), or a grid too "
                         "coarse for them",
                         ic.perturbation_amplitude, coeffs_.nu, coeffs_.kappa, coeffs_.b_T);
  else if (case_.time.dt)
    causes = fmt::format("time.dt = {:g} is fixed: above the stable step of this flow; remove it (dt then adapts) or "
                         "lower it", *case_.time.dt);
  else
    causes = fmt::format("a time.cfl of {:g} too large for this flow (lower it), or too few cells for its Rayleigh "
                         "number (raise grid.n)", case_.time.cfl);
  return fmt::format("step {} (t = {:.6g}, last dt {:.4g}): the run blew up: the flow holds NaN or Inf values: {}. "
                     "Likely: {}",
                     step_, time_, dt_old_, where, causes);
}

template <class R>
void FlowSimulation<R>::verify_state() const { checked_rate(); }

template <class R>
void FlowSimulation<R>::fill_flow_ghosts(int components) {
  Field<R>* fields[max_fill_fields];
  const FieldBC* bcs[max_fill_fields];
  for (int comp = 0; comp < components; ++comp) {
    fields[comp] = &now_[comp];
    bcs[comp] = &bc_.flow[comp];
  }
  fill_ghosts(fields, bcs, components, grid_);
}

template <class R>
void FlowSimulation<R>::fill_all_ghosts() {
  fill_flow_ghosts(4);
  queue_state_check();
}

// The host's formula for the dt that plan_step computes on the device (physics/time_step.hpp).
template <class R>
double FlowSimulation<R>::next_dt() const {
  StepLimits lim = limits_;
  lim.land = landing_;
  bool lands = false;
  return clip_to_landing(stable_time_step(lim, case_.time.dt ? 0.0 : checked_rate()), time_, lim, lands);
}

template <class R>
void FlowSimulation<R>::write_clock(const StepClock& c) {
  copy_bytes(clock_.target(), backend_, &c, Backend::cpu(), sizeof c);
}

template <class R>
StepClock FlowSimulation<R>::device_clock() const {
  StepClock c;
  copy_bytes(&c, Backend::cpu(), clock_.target(), backend_, sizeof c);
  return c;
}

template <class R>
int FlowSimulation<R>::fixed_passes() const {
  const int every = check_interval_;
  if (every <= 1 || passes_ <= 0) return 0;
  return step_ % every == 0 ? 0 : passes_;
}

// The step is queued without the host knowing its dt: plan_step computes it on the device
// from the state check the last step left there, the kernels read it where it lies, and
// the host learns it (with the state check and the time) from the clock's copy, which
// arrives as soon as plan_step has run, early in the step. With a pressure solve of fixed
// passes everything between plan_step and the copies is device work alone, replayed as one
// CUDA graph per parity of the state's arrays; a checked solve reads its residuals back.
template <class R>
void FlowSimulation<R>::step() {
  limits_.land = landing_;  // a kernel argument: no copy to the device
  plan_step_on(backend_, clock_.target(), limits_, state_rate_.target());
  clock_.publish();
  if (at_step_start_) at_step_start_();
  const StepClock* const c = clock_.target();
  const StepScalars scalars{KernelScalar::in(&c->dt), KernelScalar::in(&c->inv_dt), KernelScalar::in(&c->extrapolation)};
  const int passes = fixed_passes();
  now_.swap(next_);  // now_ receives the new state; next_ holds the one the step starts from
  const auto device_step = [&] {
    advance_ab2(grid_, coeffs_, scalars.dt, KernelScalar::in(&c->a), KernelScalar::in(&c->b), next_, G_, now_, unknown_);
    fill_flow_ghosts(4);
    project_velocity(scalars, passes);
    queue_state_check();
  };
  if (passes > 0) {
    // The first such step after construction or a restore runs kernel by kernel: what the
    // solve allocates at its first use (work arrays, reduction scratch) cannot be allocated
    // inside a capture.
    const std::uintptr_t key = reinterpret_cast<std::uintptr_t>(now_.u.data()) + std::uintptr_t(passes);
    step_graphs_.run(backend_, case_.pressure.cuda_graphs && fixed_steps_run_, key, device_step);
    fixed_steps_run_ = true;
    solve_ = SolveStats::unchecked(passes);
  } else {
    device_step();
    if (solve_.checked && solve_.cycles > 0) passes_ = solve_.cycles;
  }
  const StepClock clock = clock_.get();
  checked(clock.rate);  // the state this step started from
  if (!std::isfinite(clock.dt))
    throw std::runtime_error("no time step limit: the fluid is at rest and nu = kappa = 0; set time.dt");
  if (!solve_.converged && !solve_.residual_history.empty() && !std::isfinite(solve_.residual_history.back()))
    throw std::runtime_error("step " + std::to_string(clock.steps) + ": the pressure solve diverged (NaN); "
                             "the run is unstable: lower time.cfl or time.dt");
  time_ = clock.time;
  dt_old_ = clock.dt;
  step_ = clock.steps;
}

// With passes > 0 the solve takes that many passes and reads nothing back (its stats are
// the caller's to set); else it checks its residual and sets solve_.
template <class R>
void FlowSimulation<R>::project_velocity(const StepScalars& s, int passes) {
  // The next state's arrays are free until the next Adams-Bashforth step writes them: T holds
  // the right-hand side div u*/dt, and u, v, w are lent to the solve for its work.
  Field<R>& rhs = next_.T;
  divergence(grid_, now_, rhs, s.inv_dt);
  // The pressures of the last two solves are dt_old apart; this one is dt later.
  if (phi_previous_.data()) extrapolate_in_time(phi_, phi_previous_, s.extrapolation);
  const LentArrays<R> lent{{&next_.u, &next_.v, &next_.w}};
  if (passes > 0) pressure_solver_->solve_passes(phi_, rhs, passes, lent);
  else solve_ = pressure_solver_->solve_with(phi_, rhs, case_.pressure.tolerance, lent);
  subtract_gradient(grid_, phi_, s.dt, now_, unknown_);
  fill_flow_ghosts(3);  // the velocity
}

template <class R>
void FlowSimulation<R>::project(double dt) {
  StepClock c = device_clock();
  const double extrapolation = c.solve_dt > 0 ? dt / c.solve_dt : 0.0;
  c.solve_dt = dt;
  write_clock(c);
  project_velocity(StepScalars{dt, 1 / dt, extrapolation}, 0);
  queue_state_check();
}

template <class R>
Diagnostics FlowSimulation<R>::diagnostics() const {
  Diagnostics d;
  d.kinetic_energy = bouss::kinetic_energy(grid_, now_);
  d.max_divergence = max_abs_divergence(grid_, now_);
  d.max_velocity = max_abs_velocity(grid_, now_);
  if (has_plates())
    d.nusselt = nusselt_numbers(grid_, now_, coeffs_, case_.faces[4].temperature_value,
                                case_.faces[5].temperature_value, unknowns(),
                                side_walls_exchange_no_heat(case_) && coeffs_.b_T != 0);
  return d;
}

// Traffic model, in units of one array F = cells * sizeof(R), each array counted once
// per pass (an ideal cache for the stencil neighbours), plus the pressure solver's own model
// (PressureSolver::bytes_per_solve):
//   advance_ab2       one pass for all four: read u v w T and G, write G and next    16F
//   divergence        read u v w, write rhs                                          4F
//   subtract_gradient one pass for u, v, w: read phi, read/write u v w               7F
//   state check       the advective rate and the non-finite test read u v w T: 4F
//   first guess       extrapolated: read/write p and its previous value: 4F
template <class R>
double FlowSimulation<R>::bytes_per_step(const SolveStats& s) const {
  const double F = double(grid_.layout.cells()) * sizeof(R);
  return F * (16 + 4 + 7 + 4 + (phi_previous_.data() ? 4 : 0)) +
         pressure_solver_->bytes_per_solve(s);
}

template <class R>
const Field<R>& FlowSimulation<R>::field(const std::string& name) const {
  if (name == "theta") return now_.T;
  if (name == "u") return now_.u;
  if (name == "v") return now_.v;
  if (name == "w") return now_.w;
  if (name == "p") return phi_;
  if (name == "p_previous" && phi_previous_.data()) return phi_previous_;
  if (name == "G_u") return G_.u;
  if (name == "G_v") return G_.v;
  if (name == "G_w") return G_.w;
  if (name == "G_T") return G_.T;
  throw std::invalid_argument("unknown field \"" + name + "\"");
}

template <class R>
Field<R>& FlowSimulation<R>::field(const std::string& name) {
  return const_cast<Field<R>&>(static_cast<const FlowSimulation&>(*this).field(name));
}

template <class R>
std::vector<double> FlowSimulation<R>::host_values(const std::string& name) const {
  const Field<R>& f = name == "T" ? now_.T : field(name);
  return host_values(name, f.layout().interior(f.stagger()));
}

// T as theta + T_ref(z), summed in double, as pack gives it.
template <class R>
std::vector<double> FlowSimulation<R>::host_values(const std::string& name, const Box& box) const {
  if (name == "T") return box_values(now_.T, box, coeffs_.reference.on_centres(grid_, backend_));
  return box_values(field(name), box);
}

template <class R>
void FlowSimulation<R>::restore(const StateReader& read, double time, double last_dt, long steps, int last_cycles) {
  StepClock clock;
  clock.time = time;
  clock.dt = last_dt;
  clock.steps = steps;
  for (const std::string& name : state_names()) {
    std::vector<double> values;
    if (!read(name, values)) {
      // A checkpoint written without the extrapolation: the next solve starts from p alone.
      if (name == "p_previous") continue;
      throw std::invalid_argument("restore: the state lacks \"" + name + "\"");
    }
    set_interior_values(field(name), values);
    if (name == "p_previous") clock.solve_dt = last_dt;  // the last step's solve came last_dt after it
  }
  // The ghosts as the step leaves them: the flow's from one fill of all four fields,
  // the pressure's (and the previous pressure's) from the solver's own fill at the end of its solve.
  fill_ghosts(phi_, bc_.pressure, grid_);
  if (clock.solve_dt > 0) fill_ghosts(phi_previous_, bc_.pressure, grid_);
  write_clock(clock);
  passes_ = last_cycles;  // what the solve of fixed passes repeats until the next check
  fixed_steps_run_ = false;
  time_ = time;
  dt_old_ = last_dt;
  step_ = steps;
  solve_ = SolveStats{};
  solve_.cycles = last_cycles;
  solve_.converged = true;
  solve_.residual_history = {0};
  fill_all_ghosts();
}

template <class R>
double FlowSimulation<R>::kinetic_energy() const {
  return bouss::kinetic_energy(grid_, now_);
}

// T is packed as theta + T_ref(z).
template <class R>
void FlowSimulation<R>::pack(const std::string& name, const Box& box, float* dst, int average_axis) const {
  if (name == "T") pack_box(now_.T, box, dst, average_axis, coeffs_.reference.on_centres(grid_, backend_));
  else pack_box(field(name), box, dst, average_axis);
}

template <class R>
void FlowSimulation<R>::pack(const std::string& name, const Box& box, double* dst, int average_axis) const {
  if (name == "T") pack_box(now_.T, box, dst, average_axis, coeffs_.reference.on_centres(grid_, backend_));
  else pack_box(field(name), box, dst, average_axis);
}

// A sampled array as pack reads it: T as theta + T_ref(z), u_c v_c w_c as the means of faces.
template <class R>
void FlowSimulation<R>::accumulate(const std::string& a, int axis_a, const std::string& b, int axis_b,
                                   const Box& box, const double* weight, double* acc) const {
  const auto sampled = [&](const std::string& name, int axis) {
    SampledField<R> f;
    if (name.empty()) return f;
    f.field = name == "T" ? &now_.T : &field(name);
    f.average_axis = axis;
    if (name == "T") f.add = coeffs_.reference.on_centres(grid_, backend_);
    return f;
  };
  accumulate_sample(sampled(a, axis_a), sampled(b, axis_b), box, weight, acc);
}

template <class R>
void FlowSimulation<R>::accumulate_profiles(const AveragingClock* clock, double* acc) const {
  if (level_sums_) accumulate_profile_moments_from(grid_, now_, coeffs_.reference, level_sums_, clock, acc);
  else accumulate_profile_moments(grid_, now_, coeffs_.reference, clock, acc);
}

template <class R>
void FlowSimulation<R>::profiles_into(const std::vector<std::string>& names, double* dst) const {
  horizontal_profiles_into(grid_, now_, coeffs_.reference, names, dst);
}

template class FlowSimulation<double>;
template class FlowSimulation<float>;

}  // namespace bouss
