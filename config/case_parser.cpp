// The case schema: reads a case file (JSON), applies --set overrides (config/case_overrides.hpp)
// and validates every key section by section (grid, boundaries, physics, initial, time,
// pressure, precision, output, checkpoint), producing the Case the solver runs. Every
// problem becomes one CaseError line:
//   SOURCE: /json/pointer: what was expected, got X
// The syntax pre-check is config/json_check.hpp, the typed member access and message text
// config/case_validator.hpp; the rules that relate several keys are gathered under "Consistency
// checks" below.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include <fmt/format.h>

#include "grid/shape_rules.hpp"
#include "grid/stretching.hpp"
#include "config/case.hpp"
#include "config/case_overrides.hpp"
#include "config/case_validator.hpp"
#include "config/json_check.hpp"
#include "config/units.hpp"

namespace bouss {
namespace {

using namespace case_file;
using Faces = std::array<FaceCondition, 6>;

const Names face_names = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
constexpr int z_lo = 4, z_hi = 5;

// ---------------------------------------------------------------------------
// The plates (z_lo, z_hi), whose temperatures several sections' rules depend on

std::string describe_temperature(const FaceCondition& f) {
  switch (f.temperature) {
    case TemperatureBC::periodic:
      return "periodic";
    case TemperatureBC::insulating:
      return "insulating";
    case TemperatureBC::fixed:
      return "fixed at " + format_number(f.temperature_value);
    case TemperatureBC::conducting:
      return "conducting";
  }
  return "";
}

std::string describe_plates(const Faces& faces) {
  return "z_lo " + describe_temperature(faces[z_lo]) + ", z_hi " +
         describe_temperature(faces[z_hi]);
}

bool plates_fixed(const Faces& faces) {
  return faces[z_lo].temperature == TemperatureBC::fixed &&
         faces[z_hi].temperature == TemperatureBC::fixed;
}

// The plate that a message about the Rayleigh number's dT blames (fixed plates only): the
// one further from 0, shown with the other one.
struct BlamedPlate {
  std::string pointer;  // its /boundaries/.../temperature/fixed
  const json* given;    // its temperature as the case gives it
  std::string other;    // the other plate, as "z_lo fixed at 0"
};

BlamedPlate blamed_plate(const json& root, const Faces& faces) {
  const double t_lo = faces[z_lo].temperature_value, t_hi = faces[z_hi].temperature_value;
  const int plate = std::abs(t_hi) >= std::abs(t_lo) ? z_hi : z_lo, other = z_lo + z_hi - plate;
  return {"/boundaries/" + face_names[plate] + "/temperature/fixed",
          &root.at("boundaries").at(face_names[plate]).at("temperature").at("fixed"),
          face_names[other] + " fixed at " + format_number(faces[other].temperature_value)};
}

// ---------------------------------------------------------------------------
// Consistency checks: every rule that relates several keys, in one place (as CaNS's
// sanity checks). The section parsers below call each one where the keys it relates have
// been read, in this order:
//   boundaries  check_periodic_pairs, check_conducting_walls (side walls with the plates)
//   grid        check_grid_cells (/grid/n with the axes' periodicity),
//               check_cell_sizes (/grid/n with /grid/extent), parse_grid_axis (/grid/x, y
//               and z with /grid/n, /grid/extent and the axis's boundaries)
//   physics     check_rayleigh_plates (rayleigh with the plates), check_coefficients
//               (nu, kappa, buoyancy: from rayleigh, prandtl, the height and the plates),
//               check_one_of_two (grashof or reynolds, schmidt or prandtl),
//               check_grashof_walls (the Grashof form with the z faces)
//   initial     check_conduction_plates (the "conduction" profile with the plates),
//               check_mode_has_shape (perturbation mode with shape); then the physics that
//               needs the initial profile (finish_physics): check_grashof_lock (the Grashof
//               form with the lock profile's fluids), check_coefficients (nu, kappa,
//               buoyancy: from grashof or reynolds, schmidt, reduced_gravity, the depth and
//               the fluids), and the default reference_temperature (the fluids' mean)
//   time        check_time_has_a_stop (steps, end)
//   pressure    check_smoothing_sweeps (pre_sweeps, post_sweeps); the solver's name and
//               whether it takes /grid/n are the solver registry's (model/pressure_plan.hpp)
//   precision   check_reachable_tolerance (pressure.tolerance with a single-precision run)
//   output      check_stream_writes_something (fields, profiles), check_region_inside
//               (region with /grid), check_profiles_span_height (profiles with region),
//               check_series_interval_owner (diagnostics_interval_steps with diagnostics),
//               check_own_file and check_single_series (across the streams)
// They are not run together after parsing: later sections use what these establish (the
// physics' coefficients need the plates' dT, a region's cell the extent), and a case with
// several problems must keep reporting the same first one. (The Grashof form's coefficients
// need the lock profile's dT, which /initial gives: they are derived once /initial is read.
// A stream's significant_digits range follows its precision: that is the rule
// parse_compression applies, not a check.)

// Periodicity is a property of an axis: the high face must match the low one.
void check_periodic_pairs(const Validator& v, const json& boundaries, const Faces& faces) {
  for (int a = 0; a < 3; ++a) {
    const FaceCondition& lo = faces[2 * a];
    if (lo.periodic() == faces[2 * a + 1].periodic()) continue;
    const std::string& lo_name = face_names[2 * a];
    const std::string& hi_name = face_names[2 * a + 1];
    v.fail_expected(hi_name,
                    lo.periodic()
                        ? "\"periodic\" like " + lo_name + " (periodic faces come in pairs)"
                        : "a wall like " + lo_name + " (periodic faces come in pairs)",
                    boundaries.at(hi_name));
  }
}

// A conducting wall carries the conduction profile between the plates: it needs fixed
// plate temperatures, and is a side wall (x or y).
void check_conducting_walls(Validator& v, const json& boundaries, const Faces& faces) {
  for (int f = 0; f < 6; ++f) {
    if (faces[f].temperature != TemperatureBC::conducting) continue;
    if (f >= z_lo || !plates_fixed(faces)) {
      const auto scope = v.enter(face_names[f]);
      v.fail_expected("temperature",
                      f >= z_lo ? "\"insulating\" or {\"fixed\": NUMBER} (\"conducting\" is for side walls)"
                                : "fixed temperatures on z_lo and z_hi for a \"conducting\" side wall",
                      boundaries.at(face_names[f]).at("temperature"));
    }
  }
}

// /grid/n against the rules of every grid shape (grid/shape_rules.hpp), one of which ties it
// to the boundaries: an axis of one cell is periodic. `v` is at /grid; c.faces is parsed.
// Whether the pressure solver takes the shape is the solver registry's
// (model/pressure_plan.hpp plan_pressure).
void check_grid_cells(const Validator& v, const std::array<std::int64_t, 3>& n, const Case& c) {
  if (const auto problem = grid_shape_problem(n, {c.periodic(0), c.periodic(1), c.periodic(2)})) v.fail("n", *problem);
}

// The operators divide by h and h^2 (h = L/n): every cell size must be a normal number whose
// 1/h^2 is finite, and every coordinate finite.
void check_cell_sizes(Validator& v, const json& grid, const Case& c) {
  const json& given = grid.at("extent");
  const auto scope = v.enter("extent");
  const char* axes = "xyz";
  for (int a = 0; a < 3; ++a) {
    const std::string axis(1, axes[a]);
    const std::string index = std::to_string(a);
    const std::string pair = "[" + axis + "0, " + axis + "1]";
    if (!std::isfinite(c.extent[a][0]) || !std::isfinite(c.extent[a][1])) {
      v.fail_expected(index, pair + " with finite numbers", given[a]);
    }
    const double h = c.spacing(a), inverse_h2 = 1.0 / (h * h);
    if (!std::isnormal(h) || !std::isfinite(inverse_h2)) {
      v.fail(index, "expected " + pair + " whose " + axis + " cell size h = (" + axis + "1 - " + axis + "0)/n" +
                        axis + " is a normal number with 1/h^2 finite, got " + describe(given[a]) + ", whose " +
                        axis + " cells are h = " + format_number(h) + " wide (1/h^2 = " +
                        format_number(inverse_h2) + ")");
    }
  }
}

// The Rayleigh number is defined by the plates' temperature difference: they must be fixed
// and differ, by a finite amount. `v` is at /physics.
void check_rayleigh_plates(const Validator& v, const json& root, const Faces& faces) {
  if (!plates_fixed(faces) || faces[z_lo].temperature_value == faces[z_hi].temperature_value) {
    v.fail("rayleigh",
           "expected fixed, differing temperatures on boundaries z_lo and z_hi (the "
           "Rayleigh number is defined by their difference), got " +
               describe_plates(faces));
  }
  if (!std::isfinite(faces[z_lo].temperature_value - faces[z_hi].temperature_value)) {
    const BlamedPlate plate = blamed_plate(root, faces);
    v.fail_at(plate.pointer, "expected a temperature whose difference from the other plate's is finite (it "
                             "defines the Rayleigh number), got " + describe(*plate.given) + " with " + plate.other);
  }
}

// Two keys that say the same thing (the Grashof number or its square root, the Reynolds
// number; the temperature's Schmidt number, which is its Prandtl number): one of them is
// required; when both are given the later one is the error. Returns the one given. `v` is at
// /physics.
std::string check_one_of_two(const Validator& v, const json& physics, const std::string& first,
                             const std::string& second, const std::string& expected, const std::string& why) {
  const json* a = Validator::find(physics, first);
  const json* b = Validator::find(physics, second);
  if (!a && !b) v.fail(first, "missing required key; expected " + expected + ", or " + quote(second) + " (" + why + ")");
  if (!a || !b) return a ? first : second;
  // The later of the two in the file is the one reported.
  const auto first_at = std::find_if(physics.begin(), physics.end(), [&](const auto& m) { return &m == a; });
  const auto second_at = std::find_if(physics.begin(), physics.end(), [&](const auto& m) { return &m == b; });
  const bool first_is_earlier = std::distance(physics.begin(), first_at) < std::distance(physics.begin(), second_at);
  const std::string& earlier = first_is_earlier ? first : second;
  const std::string& later = first_is_earlier ? second : first;
  v.fail(later, "expected " + quote(first) + " or " + quote(second) + ", not both (" + why + "), got " +
                    describe(physics.at(later)) + " with " + quote(earlier) + " " + describe(physics.at(earlier)));
}

// "Grashof" or "Reynolds", the number that `key` ("grashof" or "reynolds") gives.
std::string grashof_number_name(const std::string& key) { return key == "grashof" ? "Grashof" : "Reynolds"; }

// The Grashof form's length is half the depth between walls at z_lo and z_hi: not a periodic
// z. `v` is at /physics; `key` is "grashof" or "reynolds".
void check_grashof_walls(const Validator& v, const std::string& key, const Faces& faces) {
  if (faces[z_lo].periodic())
    v.fail(key, "expected walls on boundaries z_lo and z_hi (the " + grashof_number_name(key) +
                    " number's length h is half the depth between them), got z_lo \"periodic\", z_hi \"periodic\"");
}

// The lock's fluid that a message about the Grashof form's dT blames: the one further from 0
// (left when both are equally far).
bool blame_left_fluid(const InitialCondition& ic) { return std::abs(ic.left) >= std::abs(ic.right); }

// What the Grashof form's check shows of the initial temperature, after "got".
std::string describe_initial_temperature(const json& root, const InitialCondition& ic) {
  const json* initial = Validator::find(root, "initial");
  const json* temperature = initial && initial->is_object() ? Validator::find(*initial, "temperature") : nullptr;
  if (ic.profile == TemperatureProfile::lock)
    return "left " + format_number(ic.left) + ", right " + format_number(ic.right);
  if (!temperature)
    return std::string("no /initial/temperature (the default profile ") +
           (ic.profile == TemperatureProfile::conduction ? "\"conduction\")" : "\"uniform\")");
  return describe(temperature->at("profile"));
}

// The Grashof (Reynolds) number is defined by the two fluids of the lock profile: it must be
// the initial profile, with fluids that differ by a finite amount. `v` is at /physics; `key` is
// "grashof" or "reynolds".
void check_grashof_lock(const Validator& v, const json& root, const std::string& key, const InitialCondition& ic) {
  if (ic.profile != TemperatureProfile::lock || ic.left == ic.right) {
    v.fail(key, "expected the lock initial profile (/initial/temperature/profile \"lock\") with differing left and "
                "right temperatures (the " + grashof_number_name(key) + " number is defined by their difference), got " + describe_initial_temperature(root, ic));
  }
  if (!std::isfinite(ic.left - ic.right)) {
    const bool left = blame_left_fluid(ic);
    const std::string fluid = left ? "left" : "right", other = left ? "right" : "left";
    v.fail_at("/initial/temperature/" + fluid,
              "expected a temperature whose difference from the other fluid's is finite (it defines the " +
                  grashof_number_name(key) + " number), got " +
                  describe(root.at("initial").at("temperature").at(fluid)) + " with " + other + " " +
                  format_number(left ? ic.right : ic.left));
  }
}

// One input of the formulas for nu, kappa and buoyancy, for a message that blames it.
struct FormulaInput {
  std::string pointer;  // where the case gives it
  std::string shown;    // what follows "got"
  std::string symbol;   // its name in the formulas
  double value;
};

// A coefficient the solver uses, proportional to the product of input^power over `factors`.
struct DerivedCoefficient {
  std::string name;
  double value;
  bool zero_allowed;
  std::vector<std::pair<const FormulaInput*, double>> factors;
};

// Why the solver cannot use the coefficient, if it cannot: a viscosity, diffusivity or
// buoyancy that is 0, subnormal or infinite stalls or breaks the step (dt limits divide by
// them; a subnormal loses its digits).
std::optional<std::string> coefficient_problem(double x, bool zero_allowed) {
  if (std::isnan(x)) return "not a number";
  if (std::isinf(x)) return "overflow";
  if (x == 0.0) return zero_allowed ? std::nullopt : std::optional<std::string>("underflow");
  if (!std::isnormal(x)) return "subnormal";
  return std::nullopt;
}

// Names the input that pushes a coefficient furthest the way it left the range: the largest
// |power * log(value)| of the right sign.
void check_coefficients(const Validator& v, const std::vector<DerivedCoefficient>& coefficients) {
  for (const auto& c : coefficients) {
    const auto problem = coefficient_problem(c.value, c.zero_allowed);
    if (!problem) continue;
    const double direction = *problem == "overflow" ? 1.0 : -1.0;
    const FormulaInput* blamed = c.factors.front().first;
    double furthest = -infinity;
    for (const auto& [input, power] : c.factors) {
      const double push = direction * power * std::log(std::abs(input->value));
      if (push > furthest) {
        furthest = push;
        blamed = input;
      }
    }
    std::string others;
    for (const auto& factor : c.factors) {
      if (factor.first == blamed) continue;
      others += (others.empty() ? "with " : ", ") + factor.first->symbol + " = " + format_number(factor.first->value);
    }
    v.fail_at(blamed->pointer, "expected a value for which " + c.name + " is " +
                                   (c.zero_allowed ? "0 or a finite normal number" : "a finite normal number") +
                                   ", got " + blamed->shown + ", which " + (others.empty() ? "" : others + " ") +
                                   "gives " + c.name + " = " + format_number(c.value) + " (" + *problem + ")");
  }
}

// The "conduction" profile runs between the plates' temperatures. `v` is at
// /initial/temperature.
void check_conduction_plates(const Validator& v, const Faces& faces) {
  if (!plates_fixed(faces)) {
    v.fail("profile",
           "expected fixed temperatures on boundaries z_lo and z_hi for the "
           "\"conduction\" profile, got " +
               describe_plates(faces));
  }
}

// A perturbation's "mode" (its wavelengths) belongs to the "mode" shape. `v` is at
// /initial/perturbation.
void check_mode_has_shape(const Validator& v, const json& perturbation, const InitialCondition& ic) {
  if (ic.perturbation_shape == PerturbationShape::mode) return;
  if (const json* given = Validator::find(perturbation, "shape"))
    v.fail_expected("shape", "\"mode\" when \"mode\" is given", *given);
  v.fail("shape", "missing key; expected \"mode\" when \"mode\" is given");
}

// A run stops after a number of steps or at a time. `v` is at /time.
void check_time_has_a_stop(const Validator& v, const json& time, const TimeParams& t) {
  if (!t.steps && !t.end) v.fail_expected("", "at least one of \"steps\" and \"end\"", time);
}

// The multigrid smoother runs at least once per level. `v` is at /pressure.
void check_smoothing_sweeps(const Validator& v, const PressureParams& p) {
  if (p.pre_sweeps == 0 && p.post_sweeps == 0) {
    v.fail("",
           "expected at least one smoothing sweep (pre_sweeps + post_sweeps > 0), got "
           "pre_sweeps 0 and post_sweeps 0");
  }
}

// A stream writes at least one field or profile. `v` is at the stream.
void check_stream_writes_something(const Validator& v, const json& stream, const OutputStream& o) {
  if (o.fields.empty() && o.profiles.empty()) {
    const json* given = Validator::find(stream, "fields");
    v.fail_expected(given ? "fields" : "profiles",
                    "at least one field or profile (set \"file\" to \"\" or \"output\" to [] for no output)",
                    given ? *given : json::array());
  }
}

// A region's plane lies inside /grid/extent along its axis (`axis` its key, `a` its index).
// `v` is at the region.
void check_region_inside(const Validator& v, const std::string& axis, int a, const json& value, const Case& c) {
  const double lo = c.extent[a][0], hi = c.extent[a][1];
  const NumberRule inside{"a coordinate inside the domain", lo, hi, false, false};
  if (!value.is_number() || !inside.admits(value.get<double>()))
    v.fail_expected(axis, "a coordinate inside the domain, " + format_number(lo) + " <= " + axis + " <= " +
                              format_number(hi),
                    value);
}

// Profiles are averages over whole planes at every height: not in a stream of one z plane.
// `v` is at the stream.
void check_profiles_span_height(const Validator& v, const OutputStream& o) {
  if (o.region.axis == 2 && !o.profiles.empty())
    v.fail("profiles", "profiles span the whole height, and this stream's region is the plane z = " +
                           format_number(o.region.coordinate) + ": write them in a stream of their own");
}

// diagnostics_interval_steps belongs to the stream that holds the diagnostics series. `v` is
// at the stream.
void check_series_interval_owner(const Validator& v, bool holds_series) {
  if (!holds_series)
    v.fail("diagnostics_interval_steps", "this stream does not hold the diagnostics series (give it \"diagnostics\": true)");
}

// Each stream of a list writes a file of its own: `seen` holds the earlier streams' files as
// absolute paths, and gets this one's. `v` is at the stream.
void check_own_file(const Validator& v, const OutputStream& s, Names& seen) {
  std::error_code ec;
  const std::string path = std::filesystem::absolute(s.file, ec).lexically_normal().string();
  if (contains(seen, path)) v.fail("file", "expected a file of its own, got " + quote(s.file) + ", which an earlier stream writes");
  seen.push_back(path);
}

// One stream of a list holds the diagnostics series: `claims` streams so far say so. `v` is at
// the stream.
void check_single_series(const Validator& v, int claims) {
  if (claims > 1)
    v.fail("diagnostics", "the diagnostics series goes to one stream; an earlier stream holds it already");
}

// The smallest relative residual a single-precision pressure solve can reach: the round-off
// of a float Laplacian's residual, measured on 16^3 with a grid-scale random right-hand side
// (7.1e-7; smooth right-hand sides stall higher, 3.8e-6 at 16^3 to 4.6e-4 at 128^3: the run
// then stops with the floor it met, run/run.cpp). Below it no flow converges.
constexpr double single_tolerance_floor = 1e-6;

// A single-precision run asks the pressure solve for what float can resolve.
void check_reachable_tolerance(const Validator& v, const Case& c) {
  if (c.precision != Precision::single_precision || c.pressure.tolerance >= single_tolerance_floor) return;
  v.fail_at("/pressure/tolerance",
            "expected at least " + format_number(single_tolerance_floor) +
                " in a single-precision run (float's round-off floor for the pressure residual; developed flows "
                "need 1e-5 to 1e-4: docs/case_file.md, precision), got " +
                format_number(c.pressure.tolerance));
}

// ---------------------------------------------------------------------------
// grid

// The integers of /grid/n as written; check_grid_cells decides whether they make a grid.
std::array<std::int64_t, 3> parse_grid_size(const Validator& v, const json& grid) {
  const std::string expected = "3 positive integers";
  const json& given = v.require(grid, "n", expected);
  if (!given.is_array() || given.size() != 3) v.fail_expected("n", expected, given);
  std::array<std::int64_t, 3> n{};
  for (int a = 0; a < 3; ++a) {
    const auto x = as_integer(given[a]);
    if (!x) v.fail_expected("n", expected, given);
    n[a] = *x;
  }
  return n;
}

std::array<std::array<double, 2>, 3> parse_extent(Validator& v, const json& grid) {
  const std::string expected = "3 [lo, hi] pairs of numbers";
  const json& given = v.require(grid, "extent", expected);
  if (!given.is_array() || given.size() != 3) v.fail_expected("extent", expected, given);
  const auto scope = v.enter("extent");
  const char* axes = "xyz";
  std::array<std::array<double, 2>, 3> extent{};
  for (int a = 0; a < 3; ++a) {
    const std::string index = std::to_string(a);
    const std::string lo = std::string(1, axes[a]) + "0", hi = std::string(1, axes[a]) + "1";
    const std::string pair = "[" + lo + ", " + hi + "]";
    const json& range = given[a];
    if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number()) {
      v.fail_expected(index, pair + " with 2 numbers", range);
    }
    extent[a] = {range[0].get<double>(), range[1].get<double>()};
    if (!(extent[a][0] < extent[a][1])) {
      v.fail_expected(index, pair + " with " + lo + " < " + hi, range);
    }
  }
  return extent;
}

// /grid/x, /grid/y, /grid/z: an axis's faces given explicitly (n + 1 increasing numbers from
// its lo to its hi), or a stretching {"stretching": "tanh", "parameter": BETA, "cluster":
// "both"|"low"|"high"} (z says "bottom" and "top" for low and high; grid/stretching.hpp).
// Adjacent cells differ by a ratio of at most max_stretch_ratio (across the ends too, on a
// periodic x or y); a stretched z has walls at both ends. `v` is at /grid; c.n, c.extent and
// c.faces are parsed.
void parse_grid_axis(Validator& v, const json& grid, Case& c, int a) {
  const std::string axis(1, "xyz"[a]);
  const json* given = Validator::find(grid, axis);
  if (!given) return;
  const int n = c.n[a];
  const double lo = c.extent[a][0], hi = c.extent[a][1];
  const std::string lo_name = axis + "0", hi_name = axis + "1";
  const std::string expected_list = std::to_string(n + 1) + " increasing numbers from " + lo_name + " = " +
                                    format_number(lo) + " to " + hi_name + " = " + format_number(hi) + " (the " +
                                    axis + " faces)";
  const std::string expected = expected_list + " or {\"stretching\": \"tanh\", \"parameter\": NUMBER}";
  if (a == 2 && c.periodic(2))
    v.fail("z", "expected walls at z_lo and z_hi for a stretched z (a periodic z is uniform), got "
                "periodic z boundaries and " + describe(*given));
  if (n < 2) v.fail(axis, "expected at least 2 " + axis + " cells (/grid/n) for a stretched " + axis + ", got " +
                              std::to_string(n));
  std::vector<double>& faces = c.axis_faces[a];
  std::string blame = axis;  // the key a too-wild grid is blamed on (<axis>/parameter for a stretching)
  if (given->is_array()) {
    if (given->size() != std::size_t(n) + 1) v.fail_expected(axis, expected_list, *given);
    const auto scope = v.enter(axis);
    for (std::size_t k = 0; k < given->size(); ++k) {
      const json& zk = (*given)[k];
      if (!zk.is_number() || !std::isfinite(zk.get<double>())) v.fail_expected(std::to_string(k), "a finite number", zk);
      faces.push_back(zk.get<double>());
      if (k > 0 && !(faces[k] > faces[k - 1]))
        v.fail_expected(std::to_string(k), "a number above the face before it (" + format_number(faces[k - 1]) + ")", zk);
    }
    const double tolerance = 1e-12 * (hi - lo);
    const std::string extent_path = " (/grid/extent/" + std::to_string(a) + ")";
    if (std::fabs(faces.front() - lo) > tolerance)
      v.fail_expected("0", lo_name + " = " + format_number(lo) + extent_path, (*given)[0]);
    if (std::fabs(faces.back() - hi) > tolerance)
      v.fail_expected(std::to_string(n), hi_name + " = " + format_number(hi) + extent_path, given->back());
    faces.front() = lo;
    faces.back() = hi;
    c.stretching[a] = "explicit faces";
  } else if (given->is_object()) {
    const auto scope = v.enter(axis);
    v.check_no_unknown_keys(*given, {"stretching", "parameter", "cluster"});
    v.require_string_in(*given, "stretching", {"tanh"});
    const double beta = v.require_number(*given, "parameter", positive);
    const char* low = a == 2 ? "bottom" : "low";
    const char* high = a == 2 ? "top" : "high";
    const std::string cluster = v.optional_string_in(*given, "cluster", {"both", low, high}).value_or("both");
    faces = tanh_faces(n, lo, hi - lo, beta, cluster == "both" ? Cluster::both : cluster == low ? Cluster::low : Cluster::high);
    c.stretching[a] = "tanh, parameter " + format_number(beta) + ", clustered towards " +
                      (cluster == "both" ? std::string(a == 2 ? "both plates" : "both ends") : "the " + cluster);
    blame = axis + "/parameter";
  } else {
    v.fail_expected(axis, expected, *given);
  }
  const StretchRatio r = largest_stretch_ratio(faces, c.periodic(a));
  const bool by_parameter = blame != axis;
  auto fail = [&](const std::string& message) {
    if (by_parameter) {
      const auto scope = v.enter(axis);
      v.fail("parameter", message);
    }
    v.fail(axis, message);
  };
  const auto width = [&](int k) { return faces[std::size_t(k) + 1] - faces[std::size_t(k)]; };
  if (r.ratio > max_stretch_ratio) {
    const int next = (r.cell + 1) % n;
    fail(fmt::format("expected adjacent {} cells differing in width by a ratio of at most {:g}, got cells {} "
                     "and {} of {:.4g} and {:.4g} (ratio {:.4g}){}",
                     axis, max_stretch_ratio, r.cell, next, width(r.cell), width(next), r.ratio,
                     by_parameter ? ": lower the parameter or add cells" : ""));
  }
  int thinnest = 0;
  for (int k = 1; k < n; ++k)
    if (width(k) < width(thinnest)) thinnest = k;
  const double h = width(thinnest);
  if (!std::isnormal(h) || !std::isfinite(1 / (h * h)))
    fail("expected " + axis + " cells whose width h is a normal number with 1/h^2 finite, got cell " +
         std::to_string(thinnest) + " of " + format_number(h));
}

// ---------------------------------------------------------------------------
// boundaries

void parse_face_temperature(Validator& v, const json& face, FaceCondition& f) {
  const std::string expected = "\"insulating\", \"conducting\" or {\"fixed\": NUMBER}";
  const json& given = v.require(face, "temperature", expected);
  if (given.is_string() && given == "insulating") {
    f.temperature = TemperatureBC::insulating;
    return;
  }
  if (given.is_string() && given == "conducting") {
    f.temperature = TemperatureBC::conducting;
    return;
  }
  if (!given.is_object()) v.fail_expected("temperature", expected, given);
  const auto scope = v.enter("temperature");
  v.check_no_unknown_keys(given, {"fixed"});
  f.temperature = TemperatureBC::fixed;
  f.temperature_value = v.require_number(given, "fixed", any_number);
}

FaceCondition parse_face(Validator& v, const json& boundaries, const std::string& name) {
  const std::string expected =
      "\"periodic\" or an object {\"velocity\": ..., \"temperature\": ...}";
  const json& given = v.require(boundaries, name, expected);
  FaceCondition f;  // periodic by default
  if (given.is_string() && given == "periodic") return f;
  if (!given.is_object()) v.fail_expected(name, expected, given);
  const auto scope = v.enter(name);
  v.check_no_unknown_keys(given, {"velocity", "temperature"});
  const std::string velocity = v.require_string_in(given, "velocity", {"no_slip", "free_slip"});
  f.velocity = velocity == "no_slip" ? VelocityBC::no_slip : VelocityBC::free_slip;
  parse_face_temperature(v, given, f);
  return f;
}

Faces parse_boundaries(Validator& v, const json& root) {
  const json& boundaries = v.require_object(root, "boundaries");
  const auto scope = v.enter("boundaries");
  v.check_no_unknown_keys(boundaries, face_names);
  Faces faces;
  for (int f = 0; f < 6; ++f) faces[f] = parse_face(v, boundaries, face_names[f]);
  check_periodic_pairs(v, boundaries, faces);
  check_conducting_walls(v, boundaries, faces);
  return faces;
}

// ---------------------------------------------------------------------------
// physics

const Names dimensional_keys = {"nu", "kappa", "buoyancy"};
const Names rayleigh_keys = {"rayleigh", "prandtl", "units"};
// "prandtl" belongs to this form too: the Schmidt number of the temperature.
const Names grashof_keys = {"grashof", "reynolds", "schmidt", "prandtl", "reduced_gravity"};

enum class PhysicsForm { dimensional, rayleigh, grashof };

// The forms a key belongs to, as bits (1 << PhysicsForm); 0 for the keys of every form.
unsigned forms_of(const std::string& key) {
  unsigned forms = 0;
  if (contains(dimensional_keys, key)) forms |= 1u << int(PhysicsForm::dimensional);
  if (contains(rayleigh_keys, key)) forms |= 1u << int(PhysicsForm::rayleigh);
  if (contains(grashof_keys, key)) forms |= 1u << int(PhysicsForm::grashof);
  return forms;
}

// Which form the object uses: decided by its form-specific keys in file order; the first key
// that fits none of the forms its earlier keys leave is the error, named with the earlier key
// it cannot go with. "prandtl" alone is the Rayleigh form (whose missing keys are then named).
PhysicsForm physics_form(const Validator& v, const json& physics) {
  unsigned possible = ~0u;
  std::vector<std::pair<std::string, unsigned>> seen;  // the form-specific keys so far
  for (auto it = physics.begin(); it != physics.end(); ++it) {
    const unsigned forms = forms_of(it.key());
    if (forms == 0) continue;
    if ((possible & forms) == 0) {
      std::string deciding = seen.front().first;
      for (const auto& [key, its_forms] : seen) {
        if ((its_forms & forms) == 0) {
          deciding = key;
          break;
        }
      }
      v.fail(it.key(),
             "expected one of the dimensional form (nu, kappa, buoyancy), the nondimensional Rayleigh form "
             "(rayleigh, prandtl, units) and the nondimensional Grashof form (grashof or reynolds, schmidt or "
             "prandtl, reduced_gravity), got " +
                 quote(it.key()) + " mixed with " + quote(deciding));
    }
    possible &= forms;
    seen.emplace_back(it.key(), forms);
  }
  if (seen.empty()) {
    v.fail_expected("",
                    "either nu, kappa, buoyancy (dimensional), rayleigh, prandtl, units (the Rayleigh form) or "
                    "grashof (or reynolds), schmidt (or prandtl), reduced_gravity (the Grashof form)",
                    physics);
  }
  for (const PhysicsForm form : {PhysicsForm::dimensional, PhysicsForm::rayleigh, PhysicsForm::grashof})
    if (possible & (1u << int(form))) return form;
  return PhysicsForm::dimensional;  // not reached: `seen` is not empty
}

PhysicsParams parse_dimensional(const Validator& v, const json& physics) {
  PhysicsParams p;
  p.units = Units::dimensional;
  p.nu = v.require_number(physics, "nu", positive);
  p.kappa = v.require_number(physics, "kappa", positive);
  p.buoyancy = v.require_number(physics, "buoyancy", any_number);
  // The coefficients are the values given: they must be normal (buoyancy may be 0).
  const auto input = [&](const std::string& key, double value) {
    return FormulaInput{v.pointer(key), describe(physics.at(key)), key, value};
  };
  const FormulaInput nu = input("nu", p.nu), kappa = input("kappa", p.kappa), buoyancy = input("buoyancy", p.buoyancy);
  check_coefficients(v, {{"nu", p.nu, false, {{&nu, 1.0}}},
                         {"kappa", p.kappa, false, {{&kappa, 1.0}}},
                         {"buoyancy", p.buoyancy, true, {{&buoyancy, 1.0}}}});
  return p;
}

// The coefficients a form derived, each with the inputs it is proportional to (their powers
// from config/units.hpp), `inputs` indexed by the form's input enum.
template <class Input>
std::vector<DerivedCoefficient> derived_coefficients(const std::vector<CoefficientScaling<Input>>& scalings,
                                                     const FormulaInput* const* inputs, const PhysicsParams& p) {
  std::vector<DerivedCoefficient> coefficients;
  for (const CoefficientScaling<Input>& scaling : scalings) {
    DerivedCoefficient c{scaling.name, p.*scaling.value, false, {}};
    for (const auto& [input, power] : scaling.powers) c.factors.emplace_back(inputs[static_cast<int>(input)], power);
    coefficients.push_back(std::move(c));
  }
  return coefficients;
}

// Coefficients from Ra = alpha g |dT| H^3 / (nu kappa) and Pr = nu / kappa, scaled so that
// the time unit is H^2/kappa (diffusive) or H/U with U = sqrt(alpha g |dT| H) (free_fall).
PhysicsParams parse_rayleigh(const Validator& v, const json& root, const json& physics, const Faces& faces,
                                   double height) {
  const double ra = v.require_number(physics, "rayleigh", positive);
  const double pr = v.require_number(physics, "prandtl", positive);
  const std::string units = v.require_string_in(physics, "units", {"diffusive", "free_fall"});
  check_rayleigh_plates(v, root, faces);
  const double t_lo = faces[z_lo].temperature_value, t_hi = faces[z_hi].temperature_value;
  const Units form = units == "diffusive" ? Units::diffusive : Units::free_fall;
  const PhysicsParams p = physics_from_rayleigh(ra, pr, form, height, t_lo - t_hi);

  const double dt = std::abs(t_lo - t_hi);
  const FormulaInput in_ra{v.pointer("rayleigh"), describe(physics.at("rayleigh")), "Ra", ra};
  const FormulaInput in_pr{v.pointer("prandtl"), describe(physics.at("prandtl")), "Pr", pr};
  const FormulaInput in_h{"/grid/extent/2", describe(root.at("grid").at("extent").at(2)) + " (H = " + format_number(height) + ")",
                          "H", height};
  const BlamedPlate plate = blamed_plate(root, faces);
  const FormulaInput in_dt{plate.pointer, describe(*plate.given) + " (dT = " + format_number(dt) + " with " + plate.other + ")",
                           "dT", dt};
  // Each input by its RayleighInput; the powers are config/units.hpp's.
  const FormulaInput* inputs[] = {&in_ra, &in_pr, &in_h, &in_dt};
  check_coefficients(v, derived_coefficients(rayleigh_scalings(form), inputs, p));
  return p;
}

// The Grashof form's own keys: Gr or Re, Sc (as "schmidt" or "prandtl"), g'. Its coefficients
// need the lock profile's fluids, and are derived once /initial is read (finish_physics).
PhysicsParams parse_grashof(const Validator& v, const json& physics, const Faces& faces) {
  PhysicsParams p;
  p.units = Units::buoyancy;
  const std::string number = check_one_of_two(v, physics, "grashof", "reynolds", "a positive number",
                                              "Re = sqrt(Gr): they give the same viscosity");
  (number == "grashof" ? p.grashof : p.reynolds) = v.require_number(physics, number, positive);
  const std::string schmidt = check_one_of_two(v, physics, "schmidt", "prandtl", "a positive number",
                                               "the scalar is the temperature: its Schmidt number is its Prandtl number");
  p.schmidt = v.require_number(physics, schmidt, positive);
  p.reduced_gravity = v.optional_number(physics, "reduced_gravity", positive).value_or(1.0);
  check_grashof_walls(v, number, faces);
  return p;
}

// The Grashof form's coefficients from its keys, the depth H (the z extent) and the lock
// profile's fluids: buoyancy = g' / dT, nu = sqrt(g' (H/2)^3 / Gr), kappa = nu / Sc
// (config/units.hpp). `v` is at /physics.
void derive_grashof_coefficients(const Validator& v, const json& root, const Case& c, PhysicsParams& p) {
  const json& physics = root.at("physics");
  const bool from_reynolds = p.reynolds.has_value();
  const std::string number = from_reynolds ? "reynolds" : "grashof";
  check_grashof_lock(v, root, number, c.initial);
  const double value = from_reynolds ? *p.reynolds : *p.grashof, depth = c.length(2);
  const double dt = std::abs(c.initial.left - c.initial.right);
  const PhysicsParams derived =
      from_reynolds ? physics_from_reynolds(value, *p.schmidt, *p.reduced_gravity, depth, dt)
                    : physics_from_grashof(value, *p.schmidt, *p.reduced_gravity, depth, dt);
  p.nu = derived.nu;
  p.kappa = derived.kappa;
  p.buoyancy = derived.buoyancy;

  const std::string schmidt = Validator::find(physics, "schmidt") ? "schmidt" : "prandtl";
  const FormulaInput in_number{v.pointer(number), describe(physics.at(number)), from_reynolds ? "Re" : "Gr", value};
  const FormulaInput in_sc{v.pointer(schmidt), describe(physics.at(schmidt)), "Sc", *p.schmidt};
  const json* given_g = Validator::find(physics, "reduced_gravity");
  const FormulaInput in_g{v.pointer("reduced_gravity"), given_g ? describe(*given_g) : "no value (the default, 1)", "g'",
                          *p.reduced_gravity};
  const FormulaInput in_depth{"/grid/extent/2",
                              describe(root.at("grid").at("extent").at(2)) + " (H = " + format_number(depth) + ")", "H",
                              depth};
  const bool left = blame_left_fluid(c.initial);
  const std::string fluid = left ? "left" : "right", other = left ? "right" : "left";
  const FormulaInput in_dt{"/initial/temperature/" + fluid,
                           describe(root.at("initial").at("temperature").at(fluid)) + " (dT = " + format_number(dt) +
                               " with " + other + " " + format_number(left ? c.initial.right : c.initial.left) + ")",
                           "dT", dt};
  // Each input by its GrashofInput; the powers are config/units.hpp's.
  const FormulaInput* inputs[] = {&in_number, &in_number, &in_sc, &in_g, &in_depth, &in_dt};
  check_coefficients(v, derived_coefficients(grashof_scalings(from_reynolds), inputs, p));
}

PhysicsParams parse_physics(Validator& v, const json& root, const Faces& faces, double height) {
  const json& physics = v.require_object(root, "physics");
  const auto scope = v.enter("physics");
  Names known = dimensional_keys;
  for (const Names* form : {&rayleigh_keys, &grashof_keys})
    for (const std::string& key : *form)
      if (!contains(known, key)) known.push_back(key);
  known.push_back("reference_temperature");
  v.check_no_unknown_keys(physics, known);
  PhysicsParams p;
  switch (physics_form(v, physics)) {
    case PhysicsForm::dimensional: p = parse_dimensional(v, physics); break;
    case PhysicsForm::rayleigh: p = parse_rayleigh(v, root, physics, faces, height); break;
    case PhysicsForm::grashof: p = parse_grashof(v, physics, faces); break;
  }
  // Its default needs the initial profile (finish_physics).
  if (const auto t_ref = v.optional_number(physics, "reference_temperature", any_number)) p.reference_temperature = *t_ref;
  return p;
}

// The reference temperature: the mean of the lock profile's two fluids, else of fixed plates,
// else 0. (Halves summed: the mean of two finite numbers stays finite.)
double default_reference_temperature(const Faces& faces, const InitialCondition& ic) {
  if (ic.profile == TemperatureProfile::lock) return 0.5 * ic.left + 0.5 * ic.right;
  if (!plates_fixed(faces)) return 0.0;
  return 0.5 * (faces[z_lo].temperature_value + faces[z_hi].temperature_value);
}

// What of the physics needs the initial profile, once it is read: the Grashof form's
// coefficients and the default reference temperature.
void finish_physics(Validator& v, const json& root, Case& c) {
  const auto scope = v.enter("physics");
  if (c.physics.units == Units::buoyancy) derive_grashof_coefficients(v, root, c, c.physics);
  if (!Validator::find(root.at("physics"), "reference_temperature"))
    c.physics.reference_temperature = default_reference_temperature(c.faces, c.initial);
}

// ---------------------------------------------------------------------------
// initial

InitialCondition default_initial(const Faces& faces) {
  InitialCondition ic;
  if (plates_fixed(faces)) {
    ic.profile = TemperatureProfile::conduction;
    ic.bottom = faces[z_lo].temperature_value;
    ic.top = faces[z_hi].temperature_value;
  } else {
    ic.profile = TemperatureProfile::uniform;
    ic.value = 0.0;
  }
  return ic;
}

void parse_initial_temperature(Validator& v, const json& temperature, const Faces& faces, const Case& c,
                               InitialCondition& ic) {
  const auto scope = v.enter("temperature");
  const std::string profile =
      v.require_string_in(temperature, "profile", {"uniform", "linear", "conduction", "lock"});
  if (profile == "uniform") {
    v.check_no_unknown_keys(temperature, {"profile", "value"});
    ic.profile = TemperatureProfile::uniform;
    ic.value = v.require_number(temperature, "value", any_number);
  } else if (profile == "linear") {
    v.check_no_unknown_keys(temperature, {"profile", "bottom", "top"});
    ic.profile = TemperatureProfile::linear;
    ic.bottom = v.require_number(temperature, "bottom", any_number);
    ic.top = v.require_number(temperature, "top", any_number);
  } else if (profile == "lock") {
    v.check_no_unknown_keys(temperature, {"profile", "left", "right", "position", "thickness"});
    ic.profile = TemperatureProfile::lock;
    ic.left = v.require_number(temperature, "left", any_number);
    ic.right = v.require_number(temperature, "right", any_number);
    const double x0 = c.extent[0][0], x1 = c.extent[0][1];
    const NumberRule inside{"a position inside the domain's x extent", x0, x1, true, true};
    ic.position = v.optional_number(temperature, "position", inside).value_or(0.5 * (x0 + x1));
    ic.thickness = v.optional_number(temperature, "thickness", positive).value_or(c.spacing(0));
  } else {
    v.check_no_unknown_keys(temperature, {"profile"});
    check_conduction_plates(v, faces);
    ic.profile = TemperatureProfile::conduction;
    ic.bottom = faces[z_lo].temperature_value;
    ic.top = faces[z_hi].temperature_value;
  }
}

void parse_perturbation(Validator& v, const json& perturbation, InitialCondition& ic) {
  const auto scope = v.enter("perturbation");
  v.check_no_unknown_keys(perturbation, {"amplitude", "seed", "shape", "mode"});
  ic.perturbation_amplitude =
      v.optional_number(perturbation, "amplitude", nonnegative).value_or(0.0);
  ic.seed =
      static_cast<std::uint64_t>(v.optional_int(perturbation, "seed", nonnegative_int).value_or(1));
  const std::string shape = v.optional_string_in(perturbation, "shape", {"random", "mode"}).value_or("random");
  ic.perturbation_shape = shape == "mode" ? PerturbationShape::mode : PerturbationShape::random;
  if (const json* mode = Validator::find(perturbation, "mode")) {
    const std::string expected = "2 non-negative numbers [wavelengths along x, along y]";
    if (!mode->is_array() || mode->size() != 2 || !(*mode)[0].is_number() || !(*mode)[1].is_number() ||
        (*mode)[0].get<double>() < 0 || (*mode)[1].get<double>() < 0 || !std::isfinite((*mode)[0].get<double>()) ||
        !std::isfinite((*mode)[1].get<double>()))
      v.fail_expected("mode", expected, *mode);
    check_mode_has_shape(v, perturbation, ic);
    ic.mode = {(*mode)[0].get<double>(), (*mode)[1].get<double>()};
  }
}

InitialCondition parse_initial(Validator& v, const json& root, const Faces& faces, const Case& c) {
  InitialCondition ic = default_initial(faces);
  const json* initial = v.optional_object(root, "initial");
  if (!initial) return ic;
  const auto scope = v.enter("initial");
  v.check_no_unknown_keys(*initial, {"temperature", "perturbation", "from", "record", "continue_time"});
  if (Validator::find(*initial, "from")) {
    InitialFromFile f;
    f.path = v.require_nonempty_string(*initial, "from");
    const IntRule any{"an integer record (negative: from the end, -1 the last)", -(1LL << 40), 1LL << 40};
    f.record = long(v.optional_int(*initial, "record", any).value_or(-1));
    f.continue_time = v.optional_bool(*initial, "continue_time").value_or(false);
    for (const char* other : {"temperature", "perturbation"})
      if (Validator::find(*initial, other))
        v.fail(other, "\"from\" gives the whole initial state; leave out \"" + std::string(other) + "\"");
    ic.from = f;
    return ic;
  }
  for (const char* only : {"record", "continue_time"})
    if (Validator::find(*initial, only)) v.fail(only, "goes with \"from\" (a file to start from)");
  if (const json* t = v.optional_object(*initial, "temperature")) {
    parse_initial_temperature(v, *t, faces, c, ic);
  }
  if (const json* p = v.optional_object(*initial, "perturbation")) parse_perturbation(v, *p, ic);
  return ic;
}

// ---------------------------------------------------------------------------
// time, pressure, precision, output

TimeParams parse_time(Validator& v, const json& root) {
  const json& time = v.require_object(root, "time");
  const auto scope = v.enter("time");
  v.check_no_unknown_keys(time, {"steps", "end", "cfl", "dt", "land_on_outputs"});
  TimeParams t;
  t.steps = v.optional_int(time, "steps", positive_int);
  t.end = v.optional_number(time, "end", positive);
  check_time_has_a_stop(v, time, t);
  const NumberRule cfl_range{"a number in (0, 2]", 0.0, 2.0, true, false};
  t.cfl = v.optional_number(time, "cfl", cfl_range).value_or(0.5);
  t.dt = v.optional_number(time, "dt", positive);
  t.land_on_outputs = v.optional_bool(time, "land_on_outputs").value_or(t.land_on_outputs);
  return t;
}

PressureParams parse_pressure(Validator& v, const json& root) {
  PressureParams p;
  const json* pressure = v.optional_object(root, "pressure");
  if (!pressure) return p;
  const auto scope = v.enter("pressure");
  v.check_no_unknown_keys(*pressure, {"solver", "tolerance", "max_cycles", "pre_sweeps", "post_sweeps", "omega",
                                      "fmg", "first_guess", "mixed_precision", "cuda_graphs", "check_interval", "cpu_coarse_cells",
                                      "agglomerate_below", "max_failures"});
  // A solver's name, and whether it takes the grid, are the solver registry's to say
  // (model/pressure_plan.hpp plan_pressure): the config layer knows no solver.
  p.solver = v.optional_string(*pressure, "solver").value_or(p.solver);
  const NumberRule tolerance_range{"a number in (0, 1)", 0.0, 1.0, true, true};
  p.tolerance = v.optional_number(*pressure, "tolerance", tolerance_range).value_or(p.tolerance);
  p.max_cycles = static_cast<int>(
      v.optional_int(*pressure, "max_cycles", positive_int32).value_or(p.max_cycles));
  p.pre_sweeps = static_cast<int>(
      v.optional_int(*pressure, "pre_sweeps", nonnegative_int32).value_or(p.pre_sweeps));
  p.post_sweeps = static_cast<int>(
      v.optional_int(*pressure, "post_sweeps", nonnegative_int32).value_or(p.post_sweeps));
  const NumberRule omega_range{"a number in (0, 2)", 0.0, 2.0, true, true};
  p.omega = v.optional_number(*pressure, "omega", omega_range).value_or(p.omega);
  p.fmg = v.optional_bool(*pressure, "fmg").value_or(p.fmg);
  p.first_guess = v.optional_string_in(*pressure, "first_guess", {"previous", "extrapolated"}).value_or(p.first_guess);
  p.mixed_precision = v.optional_bool(*pressure, "mixed_precision");
  p.cuda_graphs = v.optional_bool(*pressure, "cuda_graphs").value_or(p.cuda_graphs);
  if (const auto every = v.optional_int(*pressure, "check_interval", positive_int32)) p.check_interval = int(*every);
  if (const auto cells = v.optional_int(*pressure, "cpu_coarse_cells", nonnegative_int)) p.cpu_coarse_cells = *cells;
  if (const auto cells = v.optional_int(*pressure, "agglomerate_below", positive_int32)) p.agglomerate_below = int(*cells);
  p.max_failures = static_cast<int>(
      v.optional_int(*pressure, "max_failures", positive_int32).value_or(p.max_failures));
  check_smoothing_sweeps(v, p);
  return p;
}

// The fields' precision: "double" or "single" (float fields, float V-cycles; time, dt and
// every reduction stay double).
Precision parse_precision(const Validator& v, const json& root) {
  return *precision_named(v.optional_string_in(root, "precision", {"double", "single"}).value_or("double"));
}

// Distinct names from `allowed` in the array at `key`; `fallback` when it is missing.
Names parse_names(Validator& v, const json& object, const std::string& key, const Names& allowed,
                  const Names& fallback) {
  const json* given = Validator::find(object, key);
  if (!given) return fallback;
  const std::string expected = "an array of distinct names from " + quoted_list(allowed);
  if (!given->is_array()) v.fail_expected(key, expected, *given);
  const auto scope = v.enter(key);
  Names names;
  for (std::size_t i = 0; i < given->size(); ++i) {
    const std::string index = std::to_string(i);
    const std::string name = v.get_string_in((*given)[i], index, allowed);
    if (contains(names, name)) v.fail(index, "expected distinct names, got " + quote(name) + " twice");
    names.push_back(name);
  }
  return names;
}

// "region": {"z": 0.5}: the plane of cells that holds the coordinate.
OutputRegion parse_region(Validator& v, const json& stream, const Case& c) {
  OutputRegion r;
  const json* region = v.optional_object(stream, "region");
  if (!region) return r;
  const std::string expected = "one of \"x\", \"y\", \"z\" with the plane's coordinate, as {\"z\": 0.5}";
  if (region->size() != 1) v.fail_expected("region", expected, *region);
  const auto scope = v.enter("region");
  const std::string axis = region->begin().key();
  if (axis != "x" && axis != "y" && axis != "z") v.fail(axis, "unknown key; expected " + expected);
  r.axis = axis == "x" ? 0 : axis == "y" ? 1 : 2;
  const json& value = region->begin().value();
  check_region_inside(v, axis, r.axis, value, c);
  r.coordinate = value.get<double>();
  const int n = c.n[r.axis];
  if (c.stretched(r.axis)) {
    // The cell whose faces bracket it: the first face above it, less one.
    const std::vector<double>& faces = c.axis_faces[r.axis];
    const auto above = std::upper_bound(faces.begin(), faces.end(), r.coordinate);
    r.index = std::clamp(int(above - faces.begin()) - 1, 0, n - 1);
  } else {
    r.index = std::clamp(int(std::floor((r.coordinate - c.extent[r.axis][0]) / c.spacing(r.axis))), 0, n - 1);
  }
  return r;
}

OutputCompression parse_compression(Validator& v, const json& stream, Precision precision) {
  OutputCompression z;
  const json* compression = v.optional_object(stream, "compression");
  if (!compression) return z;
  const auto scope = v.enter("compression");
  v.check_no_unknown_keys(*compression, {"deflate", "shuffle", "significant_digits"});
  const IntRule level{"a zlib level from 1 to 9", 1, 9};
  z.deflate = static_cast<int>(v.get_int(v.require(*compression, "deflate", level.description), "deflate", level));
  z.shuffle = v.optional_bool(*compression, "shuffle").value_or(z.shuffle);
  const bool single = precision == Precision::single_precision;
  const IntRule digits{single ? "a number of significant digits from 1 to 7 (float)"
                              : "a number of significant digits from 1 to 15 (double)",
                       1, single ? 7 : 15};
  if (const auto d = v.optional_int(*compression, "significant_digits", digits)) z.significant_digits = int(*d);
  return z;
}

// "average": true, or {"every_steps": N, "moments": ["w_c*T", ...]}: records of time means
// over each interval, which the stream must have (interval or interval_steps).
OutputAverage parse_average(Validator& v, const json& stream, const OutputStream& o) {
  OutputAverage a;
  const json* given = Validator::find(stream, "average");
  if (!given) return a;
  if (given->is_boolean()) {
    a.enabled = given->get<bool>();
  } else {
    if (!given->is_object())
      v.fail_expected("average", "true, false or an object such as {\"every_steps\": 1, \"moments\": [\"w_c*T\"]}", *given);
    const json& object = v.get_object(*given, "average");
    const auto scope = v.enter("average");
    v.check_no_unknown_keys(object, {"every_steps", "moments"});
    a.enabled = true;
    a.every_steps = int(v.optional_int(object, "every_steps", positive_int32).value_or(1));
    a.moments = parse_names(v, object, "moments", moment_names(), {});
  }
  if (a.enabled && !o.interval && !o.interval_steps)
    v.fail("average", "an averaged stream needs \"interval\" or \"interval_steps\": the time each record averages over");
  return a;
}

// One stream: `index` its place in the list (-1 for the single-object form).
OutputStream parse_stream(Validator& v, const json& stream, const Case& c, int index,
                          std::int64_t& diagnostics_interval_steps) {
  OutputStream o;
  v.check_no_unknown_keys(stream, {"file", "interval", "interval_steps", "fields", "profiles", "precision", "region",
                                   "compression", "diagnostics", "diagnostics_interval_steps", "average"});
  if (index <= 0) o.file = "output/" + c.name + ".nc";
  if (index > 0) o.file = v.require_nonempty_string(stream, "file");
  else o.file = v.optional_string(stream, "file").value_or(o.file);
  o.interval = v.optional_number(stream, "interval", positive);
  o.interval_steps = v.optional_int(stream, "interval_steps", positive_int);
  const json* all_profiles = Validator::find(stream, "profiles");
  if (all_profiles && all_profiles->is_boolean()) o.profiles = all_profiles->get<bool>() ? profile_names() : Names{};
  else o.profiles = parse_names(v, stream, "profiles", profile_names(), {});
  // Profiles alone, unless fields are asked for too.
  o.fields = parse_names(v, stream, "fields", output_field_names(), o.profiles.empty() ? o.fields : Names{});
  check_stream_writes_something(v, stream, o);
  // By default the fields are stored in the run's own precision.
  const auto type = v.optional_string_in(stream, "precision", {"double", "float"});
  o.precision = type ? *precision_of_type(*type) : c.precision;
  o.region = parse_region(v, stream, c);
  check_profiles_span_height(v, o);
  o.compression = parse_compression(v, stream, o.precision);
  // The series: in the stream that says so, else in the first (the caller settles it).
  const std::optional<bool> holds = v.optional_bool(stream, "diagnostics");
  o.diagnostics = holds.value_or(false);
  if (const auto d = v.optional_int(stream, "diagnostics_interval_steps", positive_int)) {
    check_series_interval_owner(v, holds.value_or(index <= 0));
    diagnostics_interval_steps = *d;
  }
  if (!holds && index <= 0) o.diagnostics = true;  // provisional: a later stream may claim it
  o.average = parse_average(v, stream, o);
  return o;
}

// "output": one stream (an object; "file": "" for none) or a list of streams ([] for none).
OutputParams parse_output(Validator& v, const json& root, const Case& c) {
  OutputParams out;
  const json* output = Validator::find(root, "output");
  if (!output) {
    out.streams.push_back(OutputStream{});
    out.streams[0].file = "output/" + c.name + ".nc";
    out.streams[0].diagnostics = true;
    return out;
  }
  if (!output->is_object() && !output->is_array())
    v.fail_expected("output", "an object (one output stream) or an array of them", *output);
  const auto scope = v.enter("output");
  if (output->is_object()) {
    OutputStream s = parse_stream(v, *output, c, -1, out.diagnostics_interval_steps);
    if (!s.file.empty()) out.streams.push_back(std::move(s));
    return out;
  }
  Names seen;                     // the files, as absolute paths
  int claims = 0;                 // streams that say "diagnostics": true
  for (std::size_t i = 0; i < output->size(); ++i) {
    const std::string index = std::to_string(i);
    const json& stream = v.get_object((*output)[i], index);
    const auto in = v.enter(index);
    OutputStream s = parse_stream(v, stream, c, int(i), out.diagnostics_interval_steps);
    if (s.file.empty()) v.fail_expected("file", "a non-empty file name in a list of streams", json(s.file));
    check_own_file(v, s, seen);
    const json* says = Validator::find(stream, "diagnostics");
    if (says && *says == true) {
      check_single_series(v, ++claims);
      if (i > 0 && !Validator::find((*output)[0], "diagnostics")) out.streams[0].diagnostics = false;
    }
    out.streams.push_back(std::move(s));
  }
  return out;
}

CheckpointParams parse_checkpoint(Validator& v, const json& root) {
  CheckpointParams c;
  const json* checkpoint = v.optional_object(root, "checkpoint");
  if (!checkpoint) return c;
  const auto scope = v.enter("checkpoint");
  v.check_no_unknown_keys(*checkpoint, {"interval", "interval_steps", "file", "keep"});
  c.interval = v.optional_number(*checkpoint, "interval", positive);
  c.interval_steps = v.optional_int(*checkpoint, "interval_steps", positive_int);
  c.file = v.optional_string(*checkpoint, "file").value_or(c.file);
  c.keep = static_cast<int>(v.optional_int(*checkpoint, "keep", positive_int32).value_or(c.keep));
  return c;
}

// ---------------------------------------------------------------------------
// the whole case

// A case file is a few KiB; load_case reads no more than this, so that /dev/zero or a data
// file named by mistake is refused instead of filling memory.
constexpr std::size_t max_case_file_bytes = std::size_t(4) << 20;  // 4 MiB, as the message says

// `root` is an object (checked before the overrides were applied).
Case validate_case(Validator& v, const json& root) {
  v.check_no_unknown_keys(root, {"name", "description", "grid", "physics", "boundaries", "initial",
                                 "time", "pressure", "precision", "output", "checkpoint", "backend", "overwrite"});
  Case c;
  c.name = v.require_nonempty_string(root, "name");
  c.description = v.optional_string(root, "description").value_or("");
  const json& grid = v.require_object(root, "grid");
  std::array<std::int64_t, 3> n{};
  {
    const auto scope = v.enter("grid");
    v.check_no_unknown_keys(grid, {"n", "extent", "x", "y", "z"});
    n = parse_grid_size(v, grid);
    c.extent = parse_extent(v, grid);
  }
  // The shape's rules need the boundaries (a one-cell axis must be periodic).
  c.faces = parse_boundaries(v, root);
  {
    const auto scope = v.enter("grid");
    check_grid_cells(v, n, c);
    for (int a = 0; a < 3; ++a) c.n[a] = static_cast<int>(n[a]);
    check_cell_sizes(v, grid, c);
    for (int a = 0; a < 3; ++a) parse_grid_axis(v, grid, c, a);
  }
  c.physics = parse_physics(v, root, c.faces, c.length(2));
  c.initial = parse_initial(v, root, c.faces, c);
  finish_physics(v, root, c);
  c.time = parse_time(v, root);
  c.pressure = parse_pressure(v, root);
  c.precision = parse_precision(v, root);
  check_reachable_tolerance(v, c);
  c.output = parse_output(v, root, c);
  c.checkpoint = parse_checkpoint(v, root);
  c.backend = v.optional_string_in(root, "backend", {"auto", "cuda", "cpu"}).value_or("auto");
  c.overwrite = v.optional_bool(root, "overwrite").value_or(false);
  return c;
}

}  // namespace

Case parse_case(const std::string& text, const std::string& source,
                const std::vector<std::string>& overrides) {
  json root = parse_json(text, source);
  Validator v(source);
  if (!root.is_object()) v.fail_expected("", "a JSON object holding the case's keys", root);
  apply_overrides(root, overrides, source);
  Case c;
  try {
    c = validate_case(v, root);
  } catch (const json::exception& e) {
    // Every check above reports through CaseError; this keeps a slip in a check from
    // reaching the user as a library exception.
    throw CaseError(source + ": invalid case: " + e.what());
  }
  c.source = source;
  c.json_text = root.dump(2, ' ', false, json::error_handler_t::replace);
  return c;
}

std::string read_case_text(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw CaseError(path + ": cannot read case file: " + std::strerror(errno));
  // A folder opens for reading on Linux (reading it fails): say what it is.
  struct stat info {};
  if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    throw CaseError(path + ": cannot read case file: it is a directory");
  }
  // Read at most one byte past the limit, whatever the file claims to be (/dev/zero and
  // pipes report size 0).
  std::string text;
  char buffer[65536];
  while (text.size() <= max_case_file_bytes) {
    const std::size_t want = std::min(sizeof buffer, max_case_file_bytes + 1 - text.size());
    const std::size_t got = std::fread(buffer, 1, want, file);
    if (got == 0) break;
    text.append(buffer, got);
  }
  const int error = std::ferror(file) ? (errno != 0 ? errno : EIO) : 0;
  std::fclose(file);
  if (error != 0) throw CaseError(path + ": cannot read case file: " + std::strerror(error));
  if (text.size() > max_case_file_bytes) throw CaseError(path + ": larger than 4 MiB: not a case file");
  return text;
}

Case load_case(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_case(read_case_text(path), path, overrides);
}

}  // namespace bouss
