// Units of the physics: the nondimensional forms a case may give its physics in, turned into
// the kinematic viscosity nu, thermal diffusivity kappa and buoyancy alpha*g that the solver
// uses, and how each of those scales with the form's inputs. One home for every such form:
// the Rayleigh/Prandtl form of Rayleigh-Benard convection now; a lock exchange's
// Grashof/Reynolds form belongs beside it.
#pragma once

#include <utility>
#include <vector>

#include "io/case.hpp"

namespace bouss {

// nu, kappa and buoyancy from a Rayleigh and Prandtl number, for a layer of `height`
// between plates `delta_t` apart, in diffusive (time height^2/kappa) or free-fall
// (time height/U, U = sqrt(alpha g dT height)) units. The parser uses it for the
// rayleigh/prandtl form of "physics".
PhysicsParams physics_from_rayleigh(double rayleigh, double prandtl, Units units, double height, double delta_t);

// The inputs of the Rayleigh form: Ra, Pr, the layer's height H and the plates' |dT|.
enum class RayleighInput { rayleigh, prandtl, height, delta_t };

// How one coefficient of physics_from_rayleigh scales with its inputs: it is proportional to
// the product of input^power over `powers` (inputs of power 0 left out). The parser uses the
// powers to name the input that pushed a coefficient out of a double's range.
struct CoefficientScaling {
  const char* name;              // "nu", "kappa" or "buoyancy"
  double PhysicsParams::*value;  // where physics_from_rayleigh puts it
  std::vector<std::pair<RayleighInput, double>> powers;
};

// The three coefficients in `units` (diffusive or free_fall), in the order
// physics_from_rayleigh derives them.
const std::vector<CoefficientScaling>& rayleigh_scalings(Units units);

}  // namespace bouss
