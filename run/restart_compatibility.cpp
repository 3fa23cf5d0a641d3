// What a restart must keep, as one list of (JSON path, value as text) pairs: two cases agree
// on a key exactly when the texts are equal, because every number is written in a form that
// reads back to the same double (so 0 and -0, or two doubles one bit apart, differ).
#include "run/restart_compatibility.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/pressure_plan.hpp"

namespace bouss {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;
constexpr const char* solver_key = "/pressure/solver";

// Shortest round-trip form without a trailing ".0" (0.01, 1, 1e-08, -0).
std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::string s = nlohmann::json(x).dump();
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string boolean(bool b) { return b ? "true" : "false"; }

template <class T, class Show>
std::string optional_value(const std::optional<T>& x, Show show, const std::string& unset) {
  return x ? show(*x) : unset;
}

std::string units_name(Units u) {
  switch (u) {
    case Units::dimensional:
      return "dimensional";
    case Units::diffusive:
      return "diffusive";
    case Units::free_fall:
      return "free_fall";
    case Units::buoyancy:
      return "buoyancy";
  }
  return "?";
}

// "periodic", or "no-slip, fixed T = 1", "free-slip, insulating", "no-slip, conducting".
std::string face(const FaceCondition& f) {
  if (f.periodic()) return "periodic";
  std::string s = f.velocity == VelocityBC::no_slip ? "no-slip" : "free-slip";
  switch (f.temperature) {
    case TemperatureBC::fixed:
      return s + ", fixed T = " + number(f.temperature_value);
    case TemperatureBC::insulating:
      return s + ", insulating";
    case TemperatureBC::conducting:
      return s + ", conducting";
    case TemperatureBC::periodic:
      return s + ", periodic T";
  }
  return s;
}

// An axis's faces in one short line: "uniform", or how they were given with a hash of their
// exact values (FNV-1a of the doubles' bytes), so a restart sees any change of a face.
std::string faces_signature(const Case& c, int a) {
  if (!c.stretched(a)) return "uniform";
  std::uint64_t hash = 14695981039346656037ull;
  for (const double z : c.axis_faces[a]) {
    unsigned char bytes[sizeof z];
    std::memcpy(bytes, &z, sizeof z);
    for (const unsigned char b : bytes) hash = (hash ^ b) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return c.stretching[a] + "; faces hash " + hex;
}

// Everything a restart must keep, in case-file order; the flow problem alone (grid,
// physics, boundaries) for RestartScope::flow_state.
Entries restart_state(const Case& c, RestartScope scope) {
  Entries e;
  if (scope != RestartScope::initial_state)
    e.emplace_back("/grid/n", "[" + std::to_string(c.n[0]) + "," + std::to_string(c.n[1]) + "," + std::to_string(c.n[2]) + "]");
  std::string extent = "[";
  for (int a = 0; a < 3; ++a) {
    extent += std::string(a ? "," : "") + "[" + number(c.extent[a][0]) + "," + number(c.extent[a][1]) + "]";
  }
  e.emplace_back("/grid/extent", extent + "]");
  const char* faces[] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  if (scope == RestartScope::initial_state) {
    for (int f = 0; f < 6; ++f) e.emplace_back(std::string("/boundaries/") + faces[f], face(c.faces[f]));
    return e;
  }
  for (int a = 0; a < 3; ++a) e.emplace_back(std::string("/grid/") + "xyz"[a], faces_signature(c, a));

  const PhysicsParams& p = c.physics;
  e.emplace_back("/physics/units", quoted(units_name(p.units)));
  e.emplace_back("/physics/rayleigh", optional_value(p.rayleigh, number, "none"));
  e.emplace_back("/physics/prandtl", optional_value(p.prandtl, number, "none"));
  e.emplace_back("/physics/grashof", optional_value(p.grashof, number, "none"));
  e.emplace_back("/physics/reynolds", optional_value(p.reynolds, number, "none"));
  e.emplace_back("/physics/schmidt", optional_value(p.schmidt, number, "none"));
  e.emplace_back("/physics/reduced_gravity", optional_value(p.reduced_gravity, number, "none"));
  e.emplace_back("/physics/nu", number(p.nu));
  e.emplace_back("/physics/kappa", number(p.kappa));
  e.emplace_back("/physics/buoyancy", number(p.buoyancy));
  e.emplace_back("/physics/reference_temperature", number(p.reference_temperature));

  for (int f = 0; f < 6; ++f) e.emplace_back(std::string("/boundaries/") + faces[f], face(c.faces[f]));
  if (scope == RestartScope::flow_state) return e;

  e.emplace_back("/precision", quoted(precision_name(c.precision)));

  const PressureParams& q = c.pressure;
  // The solver that runs: "auto" and the name it picks are the same solver (restart_differences
  // reads the checkpoint's own record of it where there is one).
  e.emplace_back(solver_key, quoted(plan_pressure(c).name()));
  e.emplace_back("/pressure/tolerance", number(q.tolerance));
  e.emplace_back("/pressure/max_cycles", std::to_string(q.max_cycles));
  e.emplace_back("/pressure/pre_sweeps", std::to_string(q.pre_sweeps));
  e.emplace_back("/pressure/post_sweeps", std::to_string(q.post_sweeps));
  e.emplace_back("/pressure/omega", number(q.omega));
  e.emplace_back("/pressure/fmg", boolean(q.fmg));
  e.emplace_back("/pressure/first_guess", quoted(q.first_guess));
  e.emplace_back("/pressure/mixed_precision", optional_value(q.mixed_precision, boolean, "unset (the backend's default)"));
  e.emplace_back("/pressure/cuda_graphs", boolean(q.cuda_graphs));
  e.emplace_back("/pressure/check_interval",
                 optional_value(q.check_interval, [](int n) { return std::to_string(n); }, "unset (the solver's default)"));
  e.emplace_back("/pressure/cpu_coarse_cells",
                 optional_value(q.cpu_coarse_cells, [](long n) { return std::to_string(n); }, "unset (the default)"));
  e.emplace_back("/pressure/agglomerate_below",
                 optional_value(q.agglomerate_below, [](int n) { return std::to_string(n); }, "unset (the default)"));
  e.emplace_back("/pressure/max_failures", std::to_string(q.max_failures));
  return e;
}

}  // namespace

std::vector<std::string> restart_differences(const Case& saved, const Case& now, RestartScope scope,
                                             const std::string& saved_solver, const std::string& saved_name) {
  Entries before = restart_state(saved, scope);
  const Entries after = restart_state(now, scope);
  const bool automatic = plan_pressure(now).choice.automatic;
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i].first == solver_key) {
      if (!saved_solver.empty()) before[i].second = "\"" + canonical_solver_name(saved_solver) + "\"";
      // Where the case leaves the choice to auto, another choice is restart_solver_change's warning.
      if (automatic) continue;
    }
    if (before[i].second == after[i].second) continue;
    // A value with commas of its own ("no-slip, fixed T = 1") is set off by a semicolon.
    const bool commas = before[i].second.find(", ") != std::string::npos || after[i].second.find(", ") != std::string::npos;
    lines.push_back(before[i].first + ": " + saved_name + " has " + before[i].second + (commas ? "; " : ", ") + "the case " +
                    after[i].second);
  }
  return lines;
}

std::optional<std::string> restart_solver_change(const Case& saved, const Case& now, const std::string& saved_solver) {
  const PressurePlan plan = plan_pressure(now);
  if (!plan.choice.automatic) return std::nullopt;  // a solver the case names is restart_differences' to compare
  const std::string before = saved_solver.empty() ? plan_pressure(saved).name() : canonical_solver_name(saved_solver);
  if (before == plan.name()) return std::nullopt;
  return "the checkpoint's run solved the pressure with \"" + before + "\", and pressure.solver = \"auto\" now picks \"" +
         plan.name() + "\" (" + plan.choice.reason + "): the run continues, not bit for bit; name the solver in the "
         "case to keep the checkpoint's";
}

}  // namespace bouss
