// The flow's named arrays, one table: the fields an output stream may store and the arrays
// a checkpoint stores (the step's state), with where each sits on the grid and the units
// and long_name its netCDF variable carries.
#pragma once

#include <string>
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

}  // namespace bouss
