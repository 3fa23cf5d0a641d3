#include "physics/boundary_conditions.hpp"

namespace bouss {

FlowConditions flow_conditions(const Case& c, const ReferenceProfile& reference) {
  FlowConditions out;
  for (int face = 0; face < 6; ++face) {
    const int axis = face / 2;
    const FaceCondition& fc = c.faces[face];
    if (fc.periodic()) {
      for (auto& bc : out.flow) bc.face[face] = {BoundaryKind::periodic, 0, 0};
      out.pressure.face[face] = {BoundaryKind::periodic, 0, 0};
      continue;
    }
    for (int comp = 0; comp < 3; ++comp) {
      FaceBC& f = out.flow[comp].face[face];
      if (comp == axis) {
        f = {BoundaryKind::value, 0, 0};  // no penetration
      } else if (fc.velocity == VelocityBC::no_slip) {
        f = {BoundaryKind::value, 0, 0};  // tangential velocity vanishes at the wall
      } else {
        f = {BoundaryKind::gradient, 0, 0};  // free slip: no tangential stress
      }
    }
    switch (fc.temperature) {
      case TemperatureBC::fixed: out.flow[3].face[face] = {BoundaryKind::value, fc.temperature_value, 0}; break;
      case TemperatureBC::conducting: {  // the conduction profile between the plates
        const double bottom = c.faces[4].temperature_value, top = c.faces[5].temperature_value;
        out.flow[3].face[face] = {BoundaryKind::value, bottom, (top - bottom) / c.length(2)};
        break;
      }
      default: out.flow[3].face[face] = {BoundaryKind::gradient, 0, 0}; break;
    }
    FaceBC& t = out.flow[3].face[face];
    if (t.kind == BoundaryKind::value && axis == 2) {
      t.value -= reference.at(c.extent[2][face % 2]);
    } else if (t.kind == BoundaryKind::value) {  // z-varying from the bottom (grid/boundary.hpp)
      t.value -= reference.at(c.extent[2][0]);
      t.slope_z -= reference.gradient;
    } else if (axis == 2) {
      t.value -= reference.gradient;
    }
    // The projection keeps the normal velocity of the wall: d(phi)/dn = 0.
    out.pressure.face[face] = {BoundaryKind::gradient, 0, 0};
  }
  return out;
}

}  // namespace bouss
