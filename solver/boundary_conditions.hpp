// Physical boundary conditions of a case mapped onto the mathematical kinds of each field
// (the table in grid/README.md).
#pragma once

#include <array>

#include "grid/boundary.hpp"
#include "io/case.hpp"

namespace bouss {

// Conditions for u, v, w, T (component order of FlowFields) and the pressure.
struct FlowConditions {
  std::array<FieldBC, 4> flow;
  FieldBC pressure;
};

FlowConditions flow_conditions(const Case& c);

}  // namespace bouss
