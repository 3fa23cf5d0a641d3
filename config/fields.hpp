// The flow's named arrays, one table: the fields an output stream may store and the arrays
// a checkpoint stores (the step's state), with where each sits on the grid and the units
// and long_name its netCDF variable carries; beside it the table of the horizontally
// averaged profiles an output stream may store.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "grid/layout.hpp"

namespace bouss {

struct FieldInfo {
  const char* name;
  Stagger stagger;        // where its values sit (a mean of faces sits on the centres)
  const char* units;      // SI
  const char* long_name;
  bool output;            // an output stream's "fields" may name it
  bool state;             // a checkpoint stores it (Simulation::state_names)
  const char* mean_of;    // u_c v_c w_c: the face field whose two faces of each cell it averages
};

// Every named array: the output fields T u v w p u_c v_c w_c and the state u v w theta p
// G_u G_v G_w G_T p_previous, each list in this table's order.
const std::vector<FieldInfo>& field_table();

// The array of that name, or null.
const FieldInfo* find_field(const std::string& name);
// The array of that name; throws std::invalid_argument for another name.
const FieldInfo& field_named(const std::string& name);

// Where on the cell a value of that staggering sits, as the files' grid_location attribute
// says it: "cell centre", "x face", "y face" or "z face".
const char* grid_location(Stagger s);

// The names an output stream's "fields" may hold: T u v w p u_c v_c w_c.
const std::vector<std::string>& output_field_names();

// The moments an averaged stream may name ("a*b", a and b from the cell-centred output
// fields T u_c v_c w_c p, either order), and the variable each is written as: "T_variance"
// for "T*T", "w_c_T_covariance" for "w_c*T".
const std::vector<std::string>& moment_names();
std::pair<std::string, std::string> moment_factors(const std::string& moment);
std::string moment_variable(const std::string& moment);

// A horizontally averaged profile (physics/profiles.hpp computes it): one value on each of
// the nz cell levels (Stagger::centre) or on each of the nz+1 z-faces (Stagger::face_z).
struct ProfileInfo {
  const char* name;
  Stagger stagger;  // centre or face_z
  const char* units;  // SI
  const char* long_name;
};

// Every profile: T_mean T_rms u_rms v_rms w_rms wT_mean, in the order physics/profiles.cu
// numbers them.
const std::vector<ProfileInfo>& profile_table();
// The profile of that name, or null.
const ProfileInfo* find_profile(const std::string& name);
// The profile of that name; throws std::invalid_argument (naming the known ones) for another.
const ProfileInfo& profile_named(const std::string& name);
// The names an output stream's "profiles" may hold, in the table's order.
const std::vector<std::string>& profile_names();

}  // namespace bouss
