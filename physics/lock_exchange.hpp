// The gravity currents of a lock exchange (cases whose initial temperature profile is "lock"):
// where their fronts are, the heat content, and the terms of the mechanical energy budget.
//
// Fronts. The dense fluid (the colder of the lock's two when b_T > 0: higher T is lighter)
// runs along the floor toward the light side, the light fluid along the lid toward the dense
// side. The floor front is the farthest point of the bottom row of cells (k = 0, every i and
// j) along the dense current's direction where T departs from the light fluid's temperature
// by more than `fraction` of the contrast |T_dense - T_light|; the lid front likewise on the
// top row, from the dense fluid's temperature. The crossing is interpolated linearly between
// the farthest departed cell's centre and the next (physics/lock_exchange_kernels.hpp
// front_crossing). The depth average cannot locate them: between the fronts it equals the
// mean of the two fluids everywhere. The default fraction is 1/2, the interface itself (the
// iso-line of the mean temperature): the tanh step of the initial condition puts it at the
// lock exactly, so the distance travelled starts at 0, and it sits as far as can be from
// either fluid's value, so that neither the diffusion of the nose nor the over- and
// undershoots of the centred advection (up to 0.4 of the contrast on the coarse grid of
// cases/lock_exchange_2d.json) move it by cells.
//
// Energy budget (Winters, Lombard, Riley & D'Asaro 1995, "Available potential energy and
// mixing in density-stratified fluids", JFM 289): volume integrals over the cells per unit
// reference density, consistent with the discretization:
//   KE  = 1/2 sum over faces of u_i^2 dV            (the volume average kinetic_energy() times V)
//   PE  = -b_T sum over cells of theta z dV         (z the cell centre's height; T_ref's part
//                                                    is constant in time and left out)
//   epsilon = -nu sum over each velocity component's unknown faces of u_i lap(u_i) dV
//   phi_d   = -kappa b_T sum over cells of z lap(theta) dV
// with the Laplacian the step applies (ghosts filled). The centred flux-form advection does
// no work on KE and moves PE by exactly minus the buoyancy's work on KE (summation by parts
// with w = 0 on the floor and lid), and the pressure does no work on a divergence-free flow,
// so the semi-discrete equations give d(KE + PE)/dt = -epsilon + phi_d, and
//   E = KE + PE + int epsilon dt - int phi_d dt
// is conserved up to the time discretization (AB2, the trapezoid rule for the integrals) and
// the pressure solve's tolerance. phi_d is the diffusive conversion between internal and
// potential energy; with insulating floor and lid the sum telescopes in each column to
// kappa b_T A (<T>_top - <T>_bottom), A the floor's area and <T> the mean over the top and
// bottom rows of cells: the continuum's value. This holds where T_ref is
// constant (dT_ref/dz = 0: the lock's own reference, config/reference_profile.hpp); a
// sloping T_ref adds -w dT_ref/dz to the temperature equation, which the budget leaves out.
//
// Everything runs on the fields' backend (grid/reduce.hpp), in the fields' precision R at
// each point with the sums in double; T is theta + T_ref(z) added in double.
#pragma once

#include <array>
#include <cmath>

#include "grid/box.hpp"
#include "grid/grid.hpp"
#include "config/case.hpp"
#include "physics/flow.hpp"

namespace bouss {

// The interface: the iso-line of the two fluids' mean temperature (above says why).
constexpr double default_front_fraction = 0.5;

// The lock of a case: its two fluids, which one is dense, and where the currents start.
struct Lock {
  double dense = 0, light = 0;  // the two fluids' temperatures
  double position = 0;          // x of the lock
  int dense_direction = 1;      // +1: the dense fluid starts left of the lock and runs along the floor toward +x
  double fraction = default_front_fraction;
  double contrast() const { return std::fabs(dense - light); }
};

// True when the case's initial temperature profile is "lock" (with two different fluids).
bool is_lock_exchange(const Case& c);
// The lock of such a case; throws std::invalid_argument for another case, or a fraction
// outside (0, 1).
Lock lock_of(const Case& c, double fraction = default_front_fraction);

// Front positions: x of each front, and the distance it has travelled from the lock along
// its current's direction. Where no cell has been reached yet, the lock's position (and 0).
struct FrontPositions {
  double floor_x = 0, lid_x = 0;
  double floor_travelled = 0, lid_travelled = 0;
};

// Volume integrals of the temperature: sum T dV, PE = -b_T sum theta z dV, and T's extremes.
struct TemperatureIntegrals {
  double heat = 0, potential_energy = 0, T_min = 0, T_max = 0;
};

// The rates of the budget: epsilon (the viscous dissipation) and phi_d (the diffusive
// conversion into potential energy); d(KE + PE)/dt = -dissipation + conversion.
struct EnergyRates {
  double dissipation = 0, conversion = 0;
};

// Everything above at one state, with the total kinetic energy (a volume integral).
struct LockDiagnostics {
  FrontPositions fronts;
  TemperatureIntegrals temperature;
  double kinetic_energy = 0;  // 1/2 sum u_i^2 dV
};

template <class R>
FrontPositions front_positions(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                               const Lock& lock);
template <class R>
TemperatureIntegrals temperature_integrals(const Grid& g, const FlowFields<R>& f, const Coefficients& c);
// Fronts, integrals and the kinetic energy: three reductions, each returned to the host.
template <class R>
LockDiagnostics lock_diagnostics(const Grid& g, const FlowFields<R>& f, const Coefficients& c, const Lock& lock);

// The rates of the state f (ghosts filled) into *out, memory of the fields' backend, queued
// on its stream without waiting (grid/reduce.hpp reduce_into; read it through an AsyncValue).
// unknown[c]: the points the step updates for component c (u, v, w; T's are the cells).
template <class R>
void energy_rates_into(const Grid& g, const FlowFields<R>& f, const Coefficients& c, const std::array<Box, 4>& unknown,
                       EnergyRates* out);

}  // namespace bouss
