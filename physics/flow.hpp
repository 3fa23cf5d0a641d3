// The prognostic fields of the Boussinesq equations and the operations of one time step
// (paper 004; DESIGN.md "The equations and the step"):
//
//   du/dt = -(u.grad)u + nu lap(u) - grad(p) + b_T theta z_hat,      theta = T - T_ref(z)
//   dtheta/dt = -(u.grad)theta - w dT_ref/dz + kappa lap(theta),     div(u) = 0
//
// The prognostic temperature is theta, the departure from a reference profile T_ref(z) that
// is linear in z (ReferenceProfile): T_ref's own buoyancy is a hydrostatic pressure and its
// Laplacian vanishes, so only its advection, -w dT_ref/dz, enters the step. Between plates
// held at fixed temperatures T_ref is the conduction profile: theta then is the perturbation
// itself, stored with the digits of its own size rather than those of T (a perturbation of
// 1e-5 on T = O(1) keeps 2 of float's 7 digits, theta all 7), and the buoyancy the projection
// removes each step is the perturbation's alone, not the O(b_T dT) hydrostatic part of the
// conduction state that would otherwise set the scale of the pressure residual. Everything
// a user sees (output, profiles, Nusselt numbers, heat content) is T = theta + T_ref(z).
//
// Each function launches one kernel of the pointwise functions in physics/operators_kernels.hpp
// on the fields' backend (the AB2 step and the gradient subtraction one for all their
// fields); nothing here copies to the host except the scalar reductions that return a value.
// Everything is a template on the fields' precision R (float or double, both compiled in
// physics/flow.cu); the step's arithmetic is in R, coefficients and dt arrive in double
// (dt, AB2's a and b fixed or read on the device: KernelScalar) and are rounded to R once,
// and reductions (norms, sums, means) come back in double.
#pragma once

#include <array>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "grid/kernel_scalar.hpp"
#include "config/reference_profile.hpp"
#include "physics/time_step.hpp"

namespace bouss {

// u, v, w on x-, y-, z-faces and T at centres; component c = 0..3. T holds theta, the
// temperature less the reference profile (above).
template <class R>
struct FlowFields {
  Field<R> u, v, w, T;

  static FlowFields make(const Backend& b, const Layout& L, const char* suffix);
  Field<R>& operator[](int c) { return c == 0 ? u : c == 1 ? v : c == 2 ? w : T; }
  const Field<R>& operator[](int c) const { return c == 0 ? u : c == 1 ? v : c == 2 ? w : T; }
  void swap(FlowFields& o) {
    for (int c = 0; c < 4; ++c) (*this)[c].swap(o[c]);
  }
};

struct Coefficients {
  double nu = 0;       // kinematic viscosity
  double kappa = 0;    // thermal diffusivity
  double b_T = 0;      // buoyancy per unit temperature (alpha g)
  ReferenceProfile reference;  // T_ref(z): the field T holds T - T_ref(z)
};

// Tendencies G^n (advection + diffusion + buoyancy) of all four fields from the state
// `now` (ghosts filled), and the AB2 update into `next` on each field's unknown points with
// the step dt and AB2's a and b (physics/time_step.hpp), fixed or read on the device.
// G holds G^{n-1} on entry and G^n on return (each point reads its old value once).
template <class R>
void advance_ab2(const Grid& g, const Coefficients& c, KernelScalar dt, KernelScalar a, KernelScalar b,
                 const FlowFields<R>& now, FlowFields<R>& G, FlowFields<R>& next,
                 const std::array<Box, 4>& unknown);

// out = scale * div(u, v, w) at the cell centres.
template <class R>
void divergence(const Grid& g, const FlowFields<R>& f, Field<R>& out, KernelScalar scale);

// u -= dt grad(phi) on each velocity component's unknown faces (phi's ghosts filled).
template <class R>
void subtract_gradient(const Grid& g, const Field<R>& phi, KernelScalar dt, FlowFields<R>& f,
                       const std::array<Box, 4>& unknown);

// Scalar diagnostics (reductions over the interior cells).
template <class R>
double max_abs_divergence(const Grid& g, const FlowFields<R>& f);
// Volume-averaged kinetic energy per unit mass, (1/V) sum 1/2 |u|^2 dV, with the squares
// of the face velocities averaged to the centres.
template <class R>
double kinetic_energy(const Grid& g, const FlowFields<R>& f);
// max over cells of |u|/dx + |v|/dy + |w|/dz (dt <= cfl / rate is the advective limit) into
// *out (backend memory, see grid/reduce.hpp reduce_into), made NaN when any of u, v, w or T
// holds a NaN or Inf in the cells it reads: the step's check for a blown-up state, folded
// into the reduction the time step needs anyway.
template <class R>
void state_rate_into(const Grid& g, const FlowFields<R>& f, double* out);
template <class R>
double max_abs_velocity(const Grid& g, const FlowFields<R>& f);

// Nusselt numbers of convection between plates held at T_bottom (z0) and T_top (z1), each
// the heat flux over the conductive flux kappa dT / H (dT = T_bottom - T_top):
//   bottom, top: -kappa dT/dz through each plate (w = 0 there), averaged over the plate,
//                from the half-cell difference that the fixed-value ghost fill implies;
//   volume:      1 + <w T> / (kappa dT / H), <w T> averaged over the volume with T
//                interpolated to the z-faces as in the advective flux.
// In a discrete steady state with insulating or periodic sides, the horizontally averaged
// flux is the same through every z-face, so the three agree; pure conduction gives 1.
// Between insulating or periodic side walls (`exact_relations`), also the two of the exact
// relations of the mean dissipation rates (Shraiman & Siggia 1990), which hold in the time
// mean of a statistically steady state:
//   kinetic_dissipation: 1 + <eps_u> H / (b_T kappa dT), <eps_u> = -nu <u . lap u> over the
//                        step's unknown faces (the viscous work of the energy budget, by
//                        summation by parts nu <|grad u|^2>, the walls included);
//   thermal_dissipation: <|grad T|^2> H^2 / dT^2, the squared face-to-face differences of T
//                        (the plates' half cells included) over the volume.
// The discrete kinetic-energy and temperature-variance budgets close exactly, so in a steady
// state the five agree to round-off; in an unsteady flow they differ by the budgets' rates
// of change, and their time means agree to the statistical error (not a resolution check).
struct Nusselt {
  double bottom = NAN, top = NAN, volume = NAN;
  double kinetic_dissipation = NAN, thermal_dissipation = NAN;
};
template <class R>
Nusselt nusselt_numbers(const Grid& g, const FlowFields<R>& f, const Coefficients& c, double T_bottom, double T_top,
                        const std::array<Box, 4>& unknown, bool exact_relations);

}  // namespace bouss
