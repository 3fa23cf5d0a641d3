// Units of the physics (config/units.hpp): the coefficients of the Rayleigh/Prandtl form and
// of the lock exchange's Grashof (Reynolds) form.
#include "config/units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <string>

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

// The lock exchange's coefficients from `number`, the Grashof number or (from_reynolds) the
// Reynolds number: config/units.hpp, after Hartel, Meiburg & Necker (2000), section 2.
PhysicsParams lock_exchange(double number, bool from_reynolds, double schmidt, double reduced_gravity, double depth,
                            double delta_t) {
  PhysicsParams p;
  p.units = Units::buoyancy;
  (from_reynolds ? p.reynolds : p.grashof) = number;
  p.schmidt = schmidt;
  p.reduced_gravity = reduced_gravity;
  const double dt = std::abs(delta_t), g = reduced_gravity, h = 0.5 * depth;
  // u_b h = sqrt(g' h) h; nu = u_b h / Re = sqrt(g' h^3 / Gr), written so that g' h^3 is
  // never formed.
  p.buoyancy = g / dt;
  p.nu = from_reynolds ? std::sqrt(g * h) * h / number : h * std::sqrt(g * h / number);
  p.kappa = p.nu / schmidt;
  // The same in long double (see physics_from_rayleigh): Gr = 1e-300 in a deep channel is no
  // overflow on the way.
  using Wide = long double;
  const Wide wide_g = g, wide_h = 0.5L * depth, wide_dt = dt, wide_number = number, wide_sc = schmidt;
  const Wide nu = from_reynolds ? std::sqrt(wide_g * wide_h) * wide_h / wide_number
                                : wide_h * std::sqrt(wide_g * wide_h / wide_number);
  p.buoyancy = settle(p.buoyancy, wide_g / wide_dt);
  p.kappa = settle(p.kappa, nu / wide_sc);
  p.nu = settle(p.nu, nu);
  return p;
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

PhysicsParams physics_from_grashof(double grashof, double schmidt, double reduced_gravity, double depth,
                                   double delta_t) {
  return lock_exchange(grashof, false, schmidt, reduced_gravity, depth, delta_t);
}

PhysicsParams physics_from_reynolds(double reynolds, double schmidt, double reduced_gravity, double depth,
                                    double delta_t) {
  return lock_exchange(reynolds, true, schmidt, reduced_gravity, depth, delta_t);
}

const std::vector<CoefficientScaling<RayleighInput>>& rayleigh_scalings(Units units) {
  using In = RayleighInput;
  // Diffusive: kappa = H^2, nu = Pr H^2, buoyancy = Ra nu kappa / (dT H^3) = Ra Pr H / dT.
  static const std::vector<CoefficientScaling<RayleighInput>> diffusive = {
      {"kappa", &PhysicsParams::kappa, {{In::height, 2.0}}},
      {"nu", &PhysicsParams::nu, {{In::prandtl, 1.0}, {In::height, 2.0}}},
      {"buoyancy", &PhysicsParams::buoyancy,
       {{In::rayleigh, 1.0}, {In::prandtl, 1.0}, {In::height, 1.0}, {In::delta_t, -1.0}}}};
  // Free fall: buoyancy = H / dT, kappa = H^2 / sqrt(Ra Pr), nu = H^2 sqrt(Pr / Ra).
  static const std::vector<CoefficientScaling<RayleighInput>> free_fall = {
      {"buoyancy", &PhysicsParams::buoyancy, {{In::height, 1.0}, {In::delta_t, -1.0}}},
      {"kappa", &PhysicsParams::kappa, {{In::rayleigh, -0.5}, {In::prandtl, -0.5}, {In::height, 2.0}}},
      {"nu", &PhysicsParams::nu, {{In::rayleigh, -0.5}, {In::prandtl, 0.5}, {In::height, 2.0}}}};
  return units == Units::diffusive ? diffusive : free_fall;
}

const std::vector<CoefficientScaling<GrashofInput>>& grashof_scalings(bool from_reynolds) {
  using In = GrashofInput;
  // buoyancy = g' / dT; nu = sqrt(g' (H/2)^3 / Gr), kappa = nu / Sc (H the depth).
  static const std::vector<CoefficientScaling<GrashofInput>> grashof = {
      {"buoyancy", &PhysicsParams::buoyancy, {{In::reduced_gravity, 1.0}, {In::delta_t, -1.0}}},
      {"nu", &PhysicsParams::nu, {{In::grashof, -0.5}, {In::reduced_gravity, 0.5}, {In::depth, 1.5}}},
      {"kappa", &PhysicsParams::kappa,
       {{In::grashof, -0.5}, {In::schmidt, -1.0}, {In::reduced_gravity, 0.5}, {In::depth, 1.5}}}};
  // The same with nu = sqrt(g' H/2) (H/2) / Re.
  static const std::vector<CoefficientScaling<GrashofInput>> reynolds = {
      {"buoyancy", &PhysicsParams::buoyancy, {{In::reduced_gravity, 1.0}, {In::delta_t, -1.0}}},
      {"nu", &PhysicsParams::nu, {{In::reynolds, -1.0}, {In::reduced_gravity, 0.5}, {In::depth, 1.5}}},
      {"kappa", &PhysicsParams::kappa,
       {{In::reynolds, -1.0}, {In::schmidt, -1.0}, {In::reduced_gravity, 0.5}, {In::depth, 1.5}}}};
  return from_reynolds ? reynolds : grashof;
}

std::array<double, 2> temperature_range(const Case& c) {
  double lo = INFINITY, hi = -INFINITY;
  const auto take = [&](double t) {
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  };
  for (const FaceCondition& f : c.faces)
    if (f.temperature == TemperatureBC::fixed) take(f.temperature_value);
  // A conducting wall holds the conduction profile between the plates, whose fixed values are
  // taken above.
  const InitialCondition& ic = c.initial;
  switch (ic.profile) {
    case TemperatureProfile::uniform: take(ic.value); break;
    case TemperatureProfile::linear:
    case TemperatureProfile::conduction:
      take(ic.bottom);
      take(ic.top);
      break;
    case TemperatureProfile::lock:
      take(ic.left);
      take(ic.right);
      break;
  }
  return {lo, hi};
}

double temperature_contrast(const Case& c) {
  const auto [lo, hi] = temperature_range(c);
  return (hi - lo) + 2 * std::abs(c.initial.perturbation_amplitude);
}

std::string nondimensional_scale(Units units, const std::string& si_units) {
  if (units == Units::dimensional) return "";
  // The powers of m, s and K.
  int m = 0, s = 0, k = 0;
  std::istringstream words(si_units);
  std::string word;
  while (words >> word) {
    std::size_t at = 0;
    while (at < word.size() && std::isalpha(static_cast<unsigned char>(word[at]))) ++at;
    const std::string base = word.substr(0, at), power_text = word.substr(at);
    int power = 1;
    if (!power_text.empty()) {
      const std::size_t sign = power_text[0] == '-' ? 1 : 0;
      const bool digits = power_text.size() > sign && power_text.size() <= sign + 3 &&
                          power_text.find_first_not_of("0123456789", sign) == std::string::npos;
      if (!digits) return "";
      power = std::stoi(power_text);
    }
    if (base == "m") m += power;
    else if (base == "s") s += power;
    else if (base == "K") k += power;
    else if (base.empty() && power_text == "1") continue;
    else return "";
  }
  // A velocity scale V and a length L give time L/V: m^m s^s = L^(m+s) V^(-s). The diffusive
  // form's velocity is kappa/H: L^(m+2s) kappa^(-s).
  struct Term {
    const char* name;
    int power;
  };
  std::vector<Term> terms;
  terms.push_back({"dT", k});
  switch (units) {
    case Units::diffusive:
      terms.push_back({"H", m + 2 * s});
      terms.push_back({"kappa", -s});
      break;
    case Units::free_fall:
      terms.push_back({"H", m + s});
      terms.push_back({"U", -s});
      break;
    case Units::buoyancy:
      terms.push_back({"h", m + s});
      terms.push_back({"u_b", -s});
      break;
    case Units::dimensional: break;
  }
  const auto product = [&](int sign) {
    std::string out;
    for (const Term& t : terms) {
      const int p = sign * t.power;
      if (p <= 0) continue;
      if (!out.empty()) out += ' ';
      out += t.name;
      if (p != 1) out += "^" + std::to_string(p);
    }
    return out;
  };
  const std::string up = product(1), down = product(-1);
  if (down.empty()) return up;
  const bool several = down.find(' ') != std::string::npos;
  return (up.empty() ? "1" : up) + "/" + (several ? "(" + down + ")" : down);
}

}  // namespace bouss
