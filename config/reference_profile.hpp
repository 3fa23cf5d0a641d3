// The temperature's reference profile T_ref(z), linear in z, that the step's temperature
// field is measured from (theta = T - T_ref(z): physics/flow.hpp says why), and the rule
// that picks it for a case (docs/case_file.md, reference_temperature).
#pragma once

#include "grid/grid.hpp"
#include "config/case.hpp"

namespace bouss {

// The reference temperature profile T_ref(z) = value + gradient (z - height).
struct ReferenceProfile {
  double value = 0;     // T_ref at `height`
  double gradient = 0;  // dT_ref/dz
  double height = 0;
  double at(double z) const { return value + gradient * (z - height); }
  // On the cell centres and on the z-faces of the grid's levels, for kernels on `backend`.
  LevelLine on_centres(const Grid& g, const Backend& backend) const {
    if (g.stretched()) return {at(0), gradient, g.z_view<double>(backend).zc.p};
    return {at(g.coordinate(Stagger::centre, 2, 0)), gradient * g.h[2]};
  }
  LevelLine on_zfaces(const Grid& g, const Backend& backend) const {
    if (g.stretched()) return {at(0), gradient, g.z_view<double>(backend).zf.p};
    return {at(g.coordinate(Stagger::face_z, 2, 0)), gradient * g.h[2]};
  }
};

// Through physics.reference_temperature at mid-height, with the conduction profile's slope
// between plates that both have a fixed temperature, else constant.
inline ReferenceProfile reference_profile(const Case& c) {
  ReferenceProfile r;
  r.value = c.physics.reference_temperature;
  r.height = 0.5 * (c.extent[2][0] + c.extent[2][1]);
  const FaceCondition &bottom = c.faces[4], &top = c.faces[5];
  if (bottom.temperature == TemperatureBC::fixed && top.temperature == TemperatureBC::fixed)
    r.gradient = (top.temperature_value - bottom.temperature_value) / c.length(2);
  return r;
}

}  // namespace bouss
