#include "config/fields.hpp"

#include <stdexcept>

namespace bouss {

const std::vector<FieldInfo>& field_table() {
  // name, stagger, units, long_name, output, state, mean_of
  static const std::vector<FieldInfo> table = {
      {"T", Stagger::centre, "K", "temperature", true, false, nullptr},
      {"u", Stagger::face_x, "m s-1", "x velocity", true, true, nullptr},
      {"v", Stagger::face_y, "m s-1", "y velocity", true, true, nullptr},
      {"w", Stagger::face_z, "m s-1", "z velocity", true, true, nullptr},
      {"theta", Stagger::centre, "K",
       "temperature less its reference profile T_ref(z) (the step's temperature field)", false, true, nullptr},
      {"p", Stagger::centre, "m2 s-2", "kinematic pressure (pressure / reference density)", true, true, nullptr},
      {"u_c", Stagger::centre, "m s-1", "x velocity (mean of the cell's two x faces)", true, false, "u"},
      {"v_c", Stagger::centre, "m s-1", "y velocity (mean of the cell's two y faces)", true, false, "v"},
      {"w_c", Stagger::centre, "m s-1", "z velocity (mean of the cell's two z faces)", true, false, "w"},
      {"G_u", Stagger::face_x, "m s-2", "tendency of x velocity at the previous step (Adams-Bashforth 2)", false, true,
       nullptr},
      {"G_v", Stagger::face_y, "m s-2", "tendency of y velocity at the previous step (Adams-Bashforth 2)", false, true,
       nullptr},
      {"G_w", Stagger::face_z, "m s-2", "tendency of z velocity at the previous step (Adams-Bashforth 2)", false, true,
       nullptr},
      {"G_T", Stagger::centre, "K s-1", "tendency of theta at the previous step (Adams-Bashforth 2)", false, true,
       nullptr},
      // Only where the pressure solve extrapolates its first guess (model/pressure_plan.hpp).
      {"p_previous", Stagger::centre, "m2 s-2",
       "kinematic pressure a step before (the extrapolated first guess of the pressure solve)", false, true, nullptr},
  };
  return table;
}

namespace {
// The row of that name in a table of named rows, or null.
template <class Info>
const Info* find_in(const std::vector<Info>& table, const std::string& name) {
  for (const Info& row : table)
    if (name == row.name) return &row;
  return nullptr;
}
}  // namespace

const FieldInfo* find_field(const std::string& name) { return find_in(field_table(), name); }

const FieldInfo& field_named(const std::string& name) {
  if (const FieldInfo* f = find_field(name)) return *f;
  throw std::invalid_argument("unknown field \"" + name + "\"");
}

const char* grid_location(Stagger s) {
  switch (s) {
    case Stagger::centre: return "cell centre";
    case Stagger::face_x: return "x face";
    case Stagger::face_y: return "y face";
    case Stagger::face_z: return "z face";
  }
  return "cell centre";
}

const std::vector<std::string>& output_field_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const FieldInfo& f : field_table())
      if (f.output) n.push_back(f.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& moment_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> centred, n;
    for (const FieldInfo& f : field_table())
      if (f.output && f.stagger == Stagger::centre) centred.push_back(f.name);
    for (const std::string& a : centred)
      for (const std::string& b : centred) n.push_back(a + "*" + b);
    return n;
  }();
  return names;
}

std::pair<std::string, std::string> moment_factors(const std::string& moment) {
  const std::size_t star = moment.find('*');
  if (star == std::string::npos) throw std::invalid_argument("moment '" + moment + "' is not of the form a*b");
  return {moment.substr(0, star), moment.substr(star + 1)};
}

std::string moment_variable(const std::string& moment) {
  const auto [a, b] = moment_factors(moment);
  return a == b ? a + "_variance" : a + "_" + b + "_covariance";
}

const std::vector<ProfileInfo>& profile_table() {
  // name, stagger, units, long_name
  static const std::vector<ProfileInfo> table = {
      {"T_mean", Stagger::centre, "K", "horizontal mean of temperature"},
      {"T_rms", Stagger::centre, "K", "rms of temperature about its horizontal mean"},
      {"u_rms", Stagger::centre, "m s-1", "horizontal rms of x velocity"},
      {"v_rms", Stagger::centre, "m s-1", "horizontal rms of y velocity"},
      {"w_rms", Stagger::face_z, "m s-1", "horizontal rms of z velocity"},
      {"wT_mean", Stagger::face_z, "K m s-1", "horizontal mean of w T, the advective heat flux over rho c_p"},
  };
  return table;
}

const ProfileInfo* find_profile(const std::string& name) { return find_in(profile_table(), name); }

const ProfileInfo& profile_named(const std::string& name) {
  if (const ProfileInfo* p = find_profile(name)) return *p;
  std::string known;
  for (const ProfileInfo& p : profile_table()) known += (known.empty() ? "" : ", ") + std::string(p.name);
  throw std::invalid_argument("unknown profile '" + name + "' (known: " + known + ")");
}

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ProfileInfo& p : profile_table()) n.push_back(p.name);
    return n;
  }();
  return names;
}

}  // namespace bouss
