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

class Simulation {
 public:
  Simulation(const Case& c, const Backend& backend);

  void step();
  // Removes the divergent part of the current velocity: lap(phi) = div(u)/dt, u -= dt grad(phi).
  void project(Real dt);

  // The step the next call of step() will take: fixed, or from the advective CFL number
  // and the diffusive limit, clipped to land on time.end.
  Real next_dt() const;
  bool finished() const;

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
  // Refills every ghost layer of the flow (after the caller changed the fields).
  void fill_all_ghosts();
  void fill_flow_ghosts(int components);  // u, v, w (3) or u, v, w, T (4), one launch per axis

  // Estimated device-memory traffic of a step whose pressure solve went as `s` says, each
  // array counted once per pass that reads or writes it (see the model in simulation.cpp).
  double bytes_per_step(const SolveStats& s) const;

  // Interior values of a named output field ("T", "u", "v", "w", "p") on the host, C order.
  std::vector<double> host_values(const std::string& name) const;

 private:
  void set_initial_condition();

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
};

}  // namespace bouss
