// Units of the physics (physics/units.hpp): the Rayleigh/Prandtl form's coefficients.
#include "physics/units.hpp"

#include <cmath>

namespace bouss {
namespace {

// The formula as written, in double, unless a double intermediate overflowed or underflowed
// on the way (the two then disagree): then the long double value, rounded. Ordinary inputs
// keep the double formula's bits.
double settle(double as_written, long double wide) {
  const double rounded = static_cast<double>(wide);
  const bool agree = std::isnormal(as_written) && std::abs(as_written - rounded) <= 1e-12 * std::abs(rounded);
  return agree ? as_written : rounded;
}

}  // namespace

PhysicsParams physics_from_rayleigh(double rayleigh, double prandtl, Units units, double height, double delta_t) {
  PhysicsParams p;
  const double dt = std::abs(delta_t), h = height;
  p.rayleigh = rayleigh;
  p.prandtl = prandtl;
  p.units = units;
  // The same formulas in long double, whose exponent range (on x86-64 and aarch64) holds
  // every product below: so that Ra = 1e300 with a small box is not an overflow on the way.
  using Wide = long double;
  const Wide wide_h = h, wide_dt = dt, wide_ra = rayleigh, wide_pr = prandtl;
  if (units == Units::diffusive) {
    p.kappa = h * h;
    p.nu = prandtl * p.kappa;
    p.buoyancy = rayleigh * p.nu * p.kappa / (dt * h * h * h);
    const Wide kappa = wide_h * wide_h, nu = wide_pr * kappa;
    p.buoyancy = settle(p.buoyancy, wide_ra * nu * kappa / (wide_dt * wide_h * wide_h * wide_h));
    p.kappa = settle(p.kappa, kappa);
    p.nu = settle(p.nu, nu);
  } else {
    p.buoyancy = h / dt;
    p.kappa = h * h / std::sqrt(rayleigh * prandtl);
    p.nu = h * h * std::sqrt(prandtl / rayleigh);
    p.buoyancy = settle(p.buoyancy, wide_h / wide_dt);
    p.kappa = settle(p.kappa, wide_h * wide_h / std::sqrt(wide_ra * wide_pr));
    p.nu = settle(p.nu, wide_h * wide_h * std::sqrt(wide_pr / wide_ra));
  }
  return p;
}

const std::vector<CoefficientScaling>& rayleigh_scalings(Units units) {
  using In = RayleighInput;
  // Diffusive: kappa = H^2, nu = Pr H^2, buoyancy = Ra nu kappa / (dT H^3) = Ra Pr H / dT.
  static const std::vector<CoefficientScaling> diffusive = {
      {"kappa", &PhysicsParams::kappa, {{In::height, 2.0}}},
      {"nu", &PhysicsParams::nu, {{In::prandtl, 1.0}, {In::height, 2.0}}},
      {"buoyancy", &PhysicsParams::buoyancy,
       {{In::rayleigh, 1.0}, {In::prandtl, 1.0}, {In::height, 1.0}, {In::delta_t, -1.0}}}};
  // Free fall: buoyancy = H / dT, kappa = H^2 / sqrt(Ra Pr), nu = H^2 sqrt(Pr / Ra).
  static const std::vector<CoefficientScaling> free_fall = {
      {"buoyancy", &PhysicsParams::buoyancy, {{In::height, 1.0}, {In::delta_t, -1.0}}},
      {"kappa", &PhysicsParams::kappa, {{In::rayleigh, -0.5}, {In::prandtl, -0.5}, {In::height, 2.0}}},
      {"nu", &PhysicsParams::nu, {{In::rayleigh, -0.5}, {In::prandtl, 0.5}, {In::height, 2.0}}}};
  return units == Units::diffusive ? diffusive : free_fall;
}

}  // namespace bouss
