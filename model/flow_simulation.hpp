// The Boussinesq fields and their step in one precision R (double or float): what a
// Simulation (model/simulation.hpp) is for a case whose `precision` picks R. Both are
// compiled (model/flow_simulation.cpp). Time, dt and every reduction stay double.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grid/async_value.hpp"
#include "grid/captured_work.hpp"
#include "grid/field.hpp"
#include "grid/kernel_scalar.hpp"
#include "physics/flow.hpp"
#include "physics/time_step.hpp"
#include "solver/pressure_solver.hpp"
#include "model/simulation.hpp"

namespace bouss {

template <class R>
class FlowSimulation final : public Simulation {
 public:
  FlowSimulation(const Case& c, const Backend& backend);

  void step() override;
  void project(double dt) override;
  double next_dt() const override;
  int solve_check_interval() const override { return check_interval_; }
  int step_graphs() const override { return step_graphs_.graphs(); }
  void verify_state() const override;
  Diagnostics diagnostics() const override;
  double kinetic_energy() const override;
  Precision precision() const override { return precision_of<R>(); }
  void fill_all_ghosts() override;
  double bytes_per_step(const SolveStats& s) const override;
  std::vector<double> host_values(const std::string& name) const override;
  std::vector<double> host_values(const std::string& name, const Box& box) const override;
  using Simulation::restore;
  void restore(const StateReader& read, double time, double last_dt,
               long steps, int last_cycles) override;
  void pack(const std::string& name, const Box& box, float* dst, int average_axis) const override;
  void pack(const std::string& name, const Box& box, double* dst, int average_axis) const override;
  void profiles_into(const std::vector<std::string>& names, double* dst) const override;
  void accumulate(const std::string& a, int axis_a, const std::string& b, int axis_b, const Box& box,
                  const double* weight, double* acc) const override;
  void accumulate_profiles(const AveragingClock* clock, double* acc) const override;
  void keep_level_sums() override;
  ~FlowSimulation() override;
  const StepClock* step_clock() const override { return clock_.target(); }

  FlowFields<R>& flow() { return now_; }
  const FlowFields<R>& flow() const { return now_; }
  const Field<R>& pressure() const { return phi_; }
  // The arrays of state_names() on the backend, by name (a caller that changes one calls
  // fill_all_ghosts after); the field of "theta" is T - T_ref(z).
  const Field<R>& field(const std::string& name) const;
  Field<R>& field(const std::string& name);

 private:
  void set_initial_condition();
  void fill_flow_ghosts(int components);  // u, v, w (3) or u, v, w, T (4), one launch per axis
  // The projection's scalars: dt, 1/dt and the first guess's extrapolation ratio, fixed or
  // read from the clock on the device.
  struct StepScalars {
    KernelScalar dt, inv_dt, extrapolation;
  };
  void project_velocity(const StepScalars& s, int passes);
  // The passes of the next pressure solve when it takes a fixed number without checking its
  // residual (pressure.check_interval; the whole step is then device work alone), else 0.
  int fixed_passes() const;
  void write_clock(const StepClock& c);  // host -> device, in stream order
  StepClock device_clock() const;        // device -> host, waits for the stream
  // Queues the state check (advective rate with non-finite values folded in) of `now_`.
  void queue_state_check();
  double checked_rate() const;  // the queued check's value; throws when it is not finite
  double checked(double rate) const;  // rate, or the blow-up's error when it is not finite
  std::string blow_up_report() const;  // that error's one line: where, the last dt, likely causes

  FlowFields<R> now_, next_, G_;
  Field<R> phi_;
  // pressure.first_guess "extrapolated" with an iterative solver: the pressure before the
  // latest solve (the ratio of the steps' dt is the clock's)
  Field<R> phi_previous_;
  std::unique_ptr<PressureSolver<R>> pressure_solver_;
  // The state check of the latest state, on the device: the next step's plan_step reads it
  // there (its clock carries it back to the host); verify_state reads it on demand.
  AsyncValue<double> state_rate_;
  // The run's clock on the device, planned there at the start of each step (physics/
  // time_step.hpp plan_step) and copied back to the host as soon as it is; the case's limits.
  AsyncValue<StepClock> clock_;
  StepLimits limits_;
  int passes_ = 0;  // the passes of the latest checked pressure solve (0: none yet)
  // SolverType::check_interval where the solver can solve in fixed passes, else 1: steps between
  // the solve's residual checks
  int check_interval_ = 1;
  // The whole step, for solves of fixed passes; under ranks too where the messages go by NCCL
  // (its halos, transposes and the state check's max are then on the stream: grid/reduce.hpp).
  CapturedWork step_graphs_{true};
  bool fixed_steps_run_ = false;  // one has run kernel by kernel since construction or restore
  void* level_sums_ = nullptr;     // keep_level_sums: the profiles' sums of the current state
};

// Calls f(flow) with the FlowSimulation<R> that `sim` is (R: double or float): for what a
// case's physics computes on the fields itself (model/lock_exchange_diagnostics.hpp).
template <class F>
decltype(auto) with_flow(const Simulation& sim, F&& f) {
  if (const auto* flow = dynamic_cast<const FlowSimulation<double>*>(&sim)) return f(*flow);
  return f(dynamic_cast<const FlowSimulation<float>&>(sim));
}

}  // namespace bouss
