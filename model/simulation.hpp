// One run of the Boussinesq equations: the fields on their backend, advanced with
// OpenCurrent's scheme (paper 004; DESIGN.md "The equations and the step"):
//
//   1. tendencies G^n = advection + diffusion + buoyancy, for u, v, w and T;
//   2. AB2 with variable-dt coefficients (forward Euler first): u* = u^n + dt(a G^n + b G^n-1);
//   3. projection: lap(phi) = div(u*)/dt by the case's pressure solver (model/pressure_plan.hpp),
//      u^{n+1} = u* - dt grad(phi);
//   4. ghost fills; the caller takes diagnostics and snapshots between steps.
//
// Every field stays on the backend for the whole run: no host loop over cells and no
// host-device copy in step() except the step's clock (dt and time, planned on the device:
// physics/time_step.hpp), solver residuals, and the multigrid's small host levels (the
// restricted residual down, the correction back). Between the pressure solve's residual
// checks (pressure.check_interval: the fft solve, and the multigrid on CUDA by default) the
// step reads nothing back, and the whole step is one CUDA graph (under several ranks too
// where the messages go by NCCL: the state check's max then combines on the stream).
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "grid/async_value.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "config/case.hpp"
#include "physics/flow.hpp"
#include "physics/time_average_kernels.hpp"
#include "physics/time_step.hpp"
#include "physics/boundary_conditions.hpp"
#include "model/pressure_plan.hpp"

namespace bouss {

struct Diagnostics {
  double kinetic_energy = 0;  // volume average of |u|^2 / 2
  double max_divergence = 0;  // max |div u| over the cells
  double max_velocity = 0;    // max |u_i| over the faces
  // Nusselt numbers (physics/flow.hpp); NaN unless both plates have fixed, differing temperatures.
  Nusselt nusselt;
};

// What a Simulation of a case allocates, estimated before anything is allocated: on its
// backend (the device for CUDA: fields, the pressure solver's levels) and on the host besides
// (pinned coarse levels of a GPU run). run/run_memory.hpp adds the output's.
struct SimulationMemory {
  double backend_bytes = 0;
  double host_bytes = 0;
};
SimulationMemory simulation_memory(const Case& c, const Backend& backend);
// The case's grid (its z faces when /grid/z stretches z), laid out for elem_bytes values.
Grid make_grid(const Case& c, std::size_t elem_bytes);
// The limits of case c's time step on grid g (physics/time_step.hpp): its fixed dt, the
// diffusive limit of its thinnest cells, the buoyancy limit of its temperature contrast on the
// smallest spacing of an axis of more than one cell, its CFL number and end time.
StepLimits step_limits(const Case& c, const Grid& g);
// This rank's block of the case's grid over the ranks: c.decomposition, else the process grid
// the case's pressure solver asks for (SolverType::process_grid: the direct solve's pencils),
// else the halos' choice; a CaseError when the grid cannot be cut so.
Decomposition decompose(const Case& c, const Communicator& ranks);
// This rank's block of the case's grid laid out for the case's precision (the whole grid on
// one rank).
Grid rank_grid(const Case& c, const Communicator& ranks);

// One run of the case, whatever the precision of its fields: the clock, the solver's
// accounting and the interface the run driver, output and checkpoints use. The fields and
// the step live in FlowSimulation<R> (model/flow_simulation.hpp), R being the case's
// `precision` (double or float); make_simulation picks it.
class Simulation {
 public:
  virtual ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // One step. Throws std::runtime_error when the state it starts from is not finite (a
  // blow-up: caught one step after the step that made it, see verify_state) or the
  // pressure solve diverged.
  virtual void step() = 0;
  // Removes the divergent part of the current velocity: lap(phi) = div(u)/dt, u -= dt grad(phi).
  virtual void project(double dt) = 0;

  // The step the next call of step() will take: fixed, or from the advective CFL number
  // and the diffusive limit, clipped to land on time.end or the landing time. The host's
  // formula: step() takes the same value computed on the device.
  virtual double next_dt() const = 0;
  // A time the next steps land on exactly, as on time.end (the next output time: the run
  // driver sets it before each step); infinite for none.
  void land_at(double t) { landing_ = t; }
  bool finished() const;
  // Waits for the check of the current state (queued at the end of the last step) and
  // throws std::runtime_error naming the step when u, v, w or T holds a NaN or Inf.
  virtual void verify_state() const = 0;

  double time() const { return time_; }
  long steps_done() const { return step_; }
  double last_dt() const { return dt_old_; }
  const SolveStats& last_solve() const { return solve_; }
  // Steps between the pressure solve's residual checks (1: every solve is checked).
  virtual int solve_check_interval() const = 0;
  // CUDA graphs of the whole step made so far (one per parity of the state's arrays and
  // passes: 0 where the step runs kernel by kernel: the CPU, checked solves, MPI's messages).
  virtual int step_graphs() const = 0;
  virtual Diagnostics diagnostics() const = 0;
  virtual double kinetic_energy() const = 0;
  // True when both plates have fixed, differing temperatures (the Nusselt numbers exist).
  bool has_plates() const;
  // The fields' precision.
  virtual Precision precision() const = 0;

  const Case& config() const { return case_; }
  // The case's pressure solve, resolved once (model/pressure_plan.hpp).
  const PressurePlan& pressure_plan() const { return pressure_; }
  const Grid& grid() const { return grid_; }
  const Backend& backend() const { return backend_; }
  const FlowConditions& conditions() const { return bc_; }
  // The temperature's reference profile T_ref(z): the step's field holds T - T_ref(z).
  const ReferenceProfile& reference() const { return coeffs_.reference; }
  // nu, kappa, b_T and T_ref; the points the step updates for u, v, w and T.
  const Coefficients& coefficients() const { return coeffs_; }
  const std::array<Box, 4>& unknowns() const { return unknown_; }
  // Refills every ghost layer of the flow and checks the state again (after the caller
  // changed the fields).
  virtual void fill_all_ghosts() = 0;

  // Estimated device-memory traffic of a step whose pressure solve went as `s` says, each
  // array counted once per pass that reads or writes it (see the model in flow_simulation.cpp).
  virtual double bytes_per_step(const SolveStats& s) const = 0;

  // Interior values of a named array on the host, C order (x fastest), in double (exact for
  // either precision but T): the output fields "T", "u", "v", "w", "p", the state's
  // "theta" = T - T_ref(z) (physics/flow.hpp; T is theta + T_ref(z) summed in double), and
  // the previous step's tendencies "G_u", "G_v", "G_w", "G_T" (G_T: theta's).
  virtual std::vector<double> host_values(const std::string& name) const = 0;
  // The same over a box of the array's points (its own interior indices) alone: a
  // checkpoint's share of a rank's points.
  virtual std::vector<double> host_values(const std::string& name, const Box& box) const = 0;
  // Everything a step needs, by name: what a checkpoint stores (theta, not T: exact), with
  // "p_previous" (the pressure a step before) where the plan extrapolates it. (Where each
  // sits on the grid: field_named(name).stagger, config/fields.hpp.)
  static std::vector<std::string> state_names(const PressurePlan& plan);
  std::vector<std::string> state_names() const { return state_names(pressure_); }
  // Continues from a stored state (a checkpoint): the named arrays' interior values, the
  // time, the last dt, the steps done and the last solve's cycles. Ghosts are refilled
  // exactly as the step leaves them, so the next step is the one an uninterrupted run takes.
  //
  // The arrays come one at a time from `read` (name -> its interior values; false where the
  // state has none), so that a restart never holds more than one array besides the fields.
  using StateReader = std::function<bool(const std::string& name, std::vector<double>& values)>;
  virtual void restore(const StateReader& read, double time, double last_dt, long steps, int last_cycles) = 0;
  void restore(const std::vector<std::pair<std::string, std::vector<double>>>& arrays, double time, double last_dt,
               long steps, int last_cycles) {
    restore(
        [&](const std::string& name, std::vector<double>& values) {
          for (const auto& a : arrays)
            if (a.first == name) return values = a.second, true;
          return false;
        },
        time, last_dt, steps, last_cycles);
  }

  // Output on the device (run/stream_output.hpp): packs the named array's values over
  // `box` into dst (backend memory) in float or double, optionally the mean of each point and
  // the next along average_axis (grid/field_ops.hpp pack_box); computes the named profiles
  // into dst (physics/profiles.hpp). Both queued on the backend's stream.
  virtual void pack(const std::string& name, const Box& box, float* dst, int average_axis) const = 0;
  virtual void pack(const std::string& name, const Box& box, double* dst, int average_axis) const = 0;
  virtual void profiles_into(const std::vector<std::string>& names, double* dst) const = 0;

  // Time averages on the device (run/stream_average.hpp): adds *weight times the named
  // array's values over `box` as pack reads them (times those of `b` when not empty) to acc,
  // box.cells() doubles; adds the clock's weight times the profiles' level moments to acc
  // (physics/profiles.hpp accumulate_profile_moments). Queued, weight and acc in backend memory.
  virtual void accumulate(const std::string& a, int axis_a, const std::string& b, int axis_b, const Box& box,
                          const double* weight, double* acc) const = 0;
  virtual void accumulate_profiles(const AveragingClock* clock, double* acc) const = 0;
  // From now on the state check after each step also makes the profiles' level sums, which
  // accumulate_profiles then takes instead of a pass of its own (physics/profiles.hpp
  // state_rate_and_level_sums_into; one rank). Before the first step.
  virtual void keep_level_sums() = 0;
  // The step's clock in backend memory (physics/time_step.hpp): after plan_step, the step
  // about to be taken; between steps, the last one taken.
  virtual const StepClock* step_clock() const = 0;
  // Called in step() right after the step is planned on the device and before any field
  // changes: the state the step starts from is still current (a time average's sample).
  void at_step_start(std::function<void()> f) { at_step_start_ = std::move(f); }

 protected:
  Simulation(const Case& c, const Backend& backend, std::size_t elem_bytes);

  Case case_;
  PressurePlan pressure_;
  Backend backend_;
  Grid grid_;
  Coefficients coeffs_;
  FlowConditions bc_;
  std::array<Box, 4> unknown_;
  SolveStats solve_;
  double time_ = 0, dt_old_ = 0;
  long step_ = 0;
  double landing_ = std::numeric_limits<double>::infinity();
  std::function<void()> at_step_start_;
};

// The simulation of a case in its precision (Case::precision).
std::unique_ptr<Simulation> make_simulation(const Case& c, const Backend& backend);

}  // namespace bouss
