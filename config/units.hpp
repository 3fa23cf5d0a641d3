// Units of the physics: the nondimensional forms a case may give its physics in, turned into
// the kinematic viscosity nu, thermal diffusivity kappa and buoyancy alpha*g that the solver
// uses, and how each of those scales with the form's inputs. One home for every such form:
// the Rayleigh/Prandtl form of Rayleigh-Benard convection, and the Grashof (or Reynolds)
// form of the full-depth lock exchange.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "config/case.hpp"

namespace bouss {

// nu, kappa and buoyancy from a Rayleigh and Prandtl number, for a layer of `height`
// between plates `delta_t` apart, in diffusive (time height^2/kappa) or free-fall
// (time height/U, U = sqrt(alpha g dT height)) units. The parser uses it for the
// rayleigh/prandtl form of "physics".
PhysicsParams physics_from_rayleigh(double rayleigh, double prandtl, Units units, double height, double delta_t);

// The lock exchange of the gravity-current literature, in the nondimensional form of Hartel,
// Meiburg & Necker (2000, JFM 418, section 2): two fluids `delta_t` apart in temperature fill
// a channel of `depth` (the z extent); the length unit is the half depth h = depth / 2, the
// velocity the buoyancy velocity u_b = sqrt(g' h) with the reduced gravity
// g' = buoyancy * |delta_t|, the time h / u_b. With Gr = (u_b h / nu)^2 and the Schmidt
// number Sc = nu / kappa:
//   buoyancy = g' / |dT|,  nu = sqrt(g' h^3 / Gr) = u_b h / Re,  kappa = nu / Sc,
// where Re = sqrt(Gr) is the Reynolds number of the same flow. g' in the case's units (1
// makes u_b = sqrt(h), so with h = 1 the time unit is 1). Units::buoyancy.
PhysicsParams physics_from_grashof(double grashof, double schmidt, double reduced_gravity, double depth,
                                   double delta_t);
// The same from the Reynolds number Re = u_b h / nu (= sqrt(Gr)).
PhysicsParams physics_from_reynolds(double reynolds, double schmidt, double reduced_gravity, double depth,
                                    double delta_t);

// The inputs of the Rayleigh form: Ra, Pr, the layer's height H and the plates' |dT|.
enum class RayleighInput { rayleigh, prandtl, height, delta_t };
// The inputs of the Grashof form: Gr or Re (one of the two), Sc, g', the channel's depth
// (z extent, 2h) and the fluids' |dT|.
enum class GrashofInput { grashof, reynolds, schmidt, reduced_gravity, depth, delta_t };

// How one coefficient of a nondimensional form scales with the form's inputs (`Input`, one of
// the enums above): it is proportional to the product of input^power over `powers` (inputs of
// power 0 left out). The parser uses the powers to name the input that pushed a coefficient
// out of a double's range.
template <class Input>
struct CoefficientScaling {
  const char* name;              // "nu", "kappa" or "buoyancy"
  double PhysicsParams::*value;  // where the form's function puts it
  std::vector<std::pair<Input, double>> powers;
};

// The three coefficients in `units` (diffusive or free_fall), in the order
// physics_from_rayleigh derives them.
const std::vector<CoefficientScaling<RayleighInput>>& rayleigh_scalings(Units units);
// The three coefficients of the Grashof form, given Gr (`from_reynolds` false) or Re, in the
// order physics_from_grashof derives them.
const std::vector<CoefficientScaling<GrashofInput>>& grashof_scalings(bool from_reynolds);

// The largest temperature difference case c can hold (>= 0): the spread of its fixed and
// conducting boundary temperatures and of its initial profile's values (the plates of
// "conduction" and "linear", the two fluids of "lock", "uniform"'s value), widened by the
// perturbation's amplitude on either side. The reference temperature is left out: a uniform
// T - T_ref is balanced by the pressure and drives nothing. The buoyancy time step limit
// (physics/time_step.hpp buoyancy_time_step) takes it as the largest buoyancy b_T dT.
double temperature_contrast(const Case& c);

// The range [lo, hi] of those temperatures without the perturbation: the boundaries' and the
// initial profile's. T stays inside it in the continuum (the maximum principle); bouss plot
// centres and bounds T's colours on it (the output's temperature_range attribute). lo == hi
// where the case holds one temperature.
std::array<double, 2> temperature_range(const Case& c);

// The scale a quantity of SI units `si_units` is measured in under the nondimensional
// `units`, written from the scales of the form (diffusive: H, kappa, dT; free-fall: H, U, dT;
// buoyancy: h, u_b, dT), numerator then "/" and denominator, powers as ^N:
// "m" -> "H", "s" -> "H^2/kappa" (diffusive), "m s-1" -> "U" (free-fall),
// "m5 s-2" -> "h^3 u_b^2" (buoyancy), "K m3" -> "dT H^3". SI units are products of m, s and
// K with integer powers (UDUNITS syntax: "m2 s-2"). Empty for a dimensionless quantity ("1"
// or ""), for dimensional `units`, and for a unit of anything else.
std::string nondimensional_scale(Units units, const std::string& si_units);

}  // namespace bouss
