// Physical boundary conditions of a case mapped onto the mathematical kinds of each field
// (the table in grid/README.md).
#pragma once

#include <array>

#include "grid/boundary.hpp"
#include "config/case.hpp"
#include "physics/flow.hpp"

namespace bouss {

// Conditions for u, v, w, T (component order of FlowFields) and the pressure.
struct FlowConditions {
  std::array<FieldBC, 4> flow;
  FieldBC pressure;
  // The same on one rank's block (FieldBC::on_rank).
  FlowConditions on_rank(const Decomposition& d) const {
    FlowConditions r = *this;
    for (FieldBC& f : r.flow) f = f.on_rank(d);
    r.pressure = pressure.on_rank(d);
    return r;
  }
};

// The conditions of the fields the step holds: T's are those of theta = T - T_ref(z), each
// value condition less T_ref where it applies (a conducting wall's slope less T_ref's), each
// gradient condition on a z-face less dT_ref/dz.
FlowConditions flow_conditions(const Case& c, const ReferenceProfile& reference);

}  // namespace bouss
