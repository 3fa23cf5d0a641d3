// One run of the Boussinesq equations: owns the fields on their backend and advances
// them with OpenCurrent's scheme (paper 004; DESIGN.md "The equations and the step"):
//
//   1. tendencies G^n = advection + diffusion + buoyancy, for u, v, w and T;
//   2. AB2 with variable-dt coefficients (forward Euler first): u* = u^n + dt(a G^n + b G^n-1);
//   3. projection: lap(phi) = div(u*)/dt by multigrid, u^{n+1} = u* - dt grad(phi);
//   4. ghost fills; the caller takes diagnostics and snapshots between steps.
//
// Every field stays on the backend for the whole run: no host loop over cells and no
// host-device copy in step() except scalar reductions (dt, solver residuals) and the
// multigrid's small host levels (the restricted residual down, the correction back).
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "grid/async_value.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "io/case.hpp"
#include "physics/flow.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/multigrid.hpp"

namespace bouss {

struct Diagnostics {
  Real kinetic_energy = 0;  // volume average of |u|^2 / 2
  Real max_divergence = 0;  // max |div u| over the cells
  Real max_velocity = 0;    // max |u_i| over the faces
  // Nusselt numbers (physics/flow.hpp); NaN unless both plates have fixed, differing temperatures.
  Nusselt nusselt{NAN, NAN, NAN};
};

// The multigrid options a case's "pressure" section asks for.
MultigridOptions multigrid_options(const PressureParams& p, const Backend& backend);

// What a run of a case allocates, estimated before anything is allocated: on the backend
// (the device for CUDA) and on the host (pinned coarse levels, the host copies a snapshot
// or checkpoint makes). `check_memory` compares them with what the machine has.
struct MemoryEstimate {
  double backend_bytes = 0;  // what a Simulation allocates on its backend: fields, multigrid levels
  double host_bytes = 0;     // what it allocates on the host besides (pinned coarse levels of a GPU run)
  double output_bytes = 0;   // host memory that output takes: its staging slots, a checkpoint's arrays
  double output_device_bytes = 0;  // the device side of the output's staging slots (GPU runs)
  // Host memory at the peak: for the CPU backend, everything.
  double host_peak(const Backend& b) const { return (b.is_cuda() ? 0 : backend_bytes) + host_bytes + output_bytes; }
  double device_peak() const { return backend_bytes + output_device_bytes; }
};
MemoryEstimate estimate_memory(const Case& c, const Backend& backend);
// Throws CaseError "SOURCE: /grid/n: the run needs X of GPU memory, the device has Y free"
// (or of host memory) when the run would not fit.
void check_memory(const Case& c, const Backend& backend);

class Simulation {
 public:
  Simulation(const Case& c, const Backend& backend);

  // One step. Throws std::runtime_error when the state it starts from is not finite (a
  // blow-up: caught one step after the step that made it, see verify_state) or the
  // pressure solve diverged.
  void step();
  // Removes the divergent part of the current velocity: lap(phi) = div(u)/dt, u -= dt grad(phi).
  void project(Real dt);

  // The step the next call of step() will take: fixed, or from the advective CFL number
  // and the diffusive limit, clipped to land on time.end.
  Real next_dt() const;
  bool finished() const;
  // Waits for the check of the current state (queued at the end of the last step) and
  // throws std::runtime_error naming the step when u, v, w or T holds a NaN or Inf.
  void verify_state() const;

  Real time() const { return time_; }
  long steps_done() const { return step_; }
  Real last_dt() const { return dt_old_; }
  const SolveStats& last_solve() const { return solve_; }
  Diagnostics diagnostics() const;
  // True when both plates have fixed, differing temperatures (the Nusselt numbers exist).
  bool has_plates() const;

  const Case& config() const { return case_; }
  const Grid& grid() const { return grid_; }
  const Backend& backend() const { return backend_; }
  FlowFields& flow() { return now_; }
  const FlowFields& flow() const { return now_; }
  const Field<Real>& pressure() const { return phi_; }
  const FlowConditions& conditions() const { return bc_; }
  const Multigrid& multigrid() const { return *mg_; }
  // Refills every ghost layer of the flow and checks the state again (after the caller
  // changed the fields).
  void fill_all_ghosts();

  // Estimated device-memory traffic of a step whose pressure solve went as `s` says, each
  // array counted once per pass that reads or writes it (see the model in simulation.cpp).
  double bytes_per_step(const SolveStats& s) const;

  // Interior values of a named array on the host, C order (x fastest): the output fields
  // "T", "u", "v", "w", "p", and the previous step's tendencies "G_u", "G_v", "G_w", "G_T".
  std::vector<double> host_values(const std::string& name) const;
  // The same arrays on the backend, by name (for output packed on the device; a caller that
  // changes one calls fill_all_ghosts after).
  const Field<Real>& field(const std::string& name) const;
  Field<Real>& field(const std::string& name);
  // Everything a step needs, by name: what a checkpoint stores.
  static const std::vector<std::string>& state_names();
  // Continues from a stored state (a checkpoint): the named arrays' interior values, the
  // time, the last dt, the steps done and the last solve's cycles. Ghosts are refilled
  // exactly as the step leaves them, so the next step is the one an uninterrupted run takes.
  void restore(const std::vector<std::pair<std::string, std::vector<double>>>& arrays, Real time, Real last_dt,
               long steps, int last_cycles);

 private:
  void set_initial_condition();
  void fill_flow_ghosts(int components);  // u, v, w (3) or u, v, w, T (4), one launch per axis
  void project_velocity(Real dt);
  // Queues the state check (advective rate with non-finite values folded in) of `now_`.
  void queue_state_check();
  Real checked_rate() const;  // the queued check's value; throws when it is not finite

  Case case_;
  Backend backend_;
  Grid grid_;
  Coefficients coeffs_;
  FlowConditions bc_;
  std::array<Box, 4> unknown_;
  FlowFields now_, next_, G_;
  Field<Real> phi_, rhs_;
  std::unique_ptr<Multigrid> mg_;
  SolveStats solve_;
  Real time_ = 0, dt_old_ = 0;
  long step_ = 0;
  // The state check of the latest state: its value arrives on the host without a device
  // sync; with an adaptive dt the next step needs it anyway, with a fixed dt it is read
  // once the next step's first kernels are queued, so the device never waits for it.
  AsyncValue<Real> state_rate_;
  long checked_step_ = 0;
};

}  // namespace bouss
