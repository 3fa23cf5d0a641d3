// Helpers shared by the test suites: cases built in code, fields set from functions.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include "grid/backend.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "io/case.hpp"
#include "physics/units.hpp"

namespace bouss::test {

inline FaceCondition periodic_face() { return FaceCondition{}; }
inline FaceCondition wall(VelocityBC v, TemperatureBC t = TemperatureBC::insulating, double T = 0) {
  FaceCondition f;
  f.velocity = v;
  f.temperature = t;
  f.temperature_value = T;
  return f;
}

// A dimensional case on [0,Lx]x[0,Ly]x[0,Lz], periodic everywhere unless faces are set.
inline Case box_case(std::array<int, 3> n, std::array<double, 3> length, double nu = 0, double kappa = 0,
                     double buoyancy = 0) {
  Case c;
  c.source = "test";
  c.name = "test";
  c.n = n;
  for (int a = 0; a < 3; ++a) c.extent[a] = {0.0, length[a]};
  c.physics.units = Units::dimensional;
  c.physics.nu = nu;
  c.physics.kappa = kappa;
  c.physics.buoyancy = buoyancy;
  c.initial.profile = TemperatureProfile::uniform;
  c.time.steps = 1;
  return c;
}

// Rayleigh-Benard plates: no-slip (or free-slip) at z, fixed temperatures bottom/top.
inline void set_plates(Case& c, VelocityBC v, double T_bottom, double T_top) {
  c.faces[4] = wall(v, TemperatureBC::fixed, T_bottom);
  c.faces[5] = wall(v, TemperatureBC::fixed, T_top);
}

// Rayleigh-Benard between plates at T_bottom and T_top (velocity condition v): the physics
// from Ra and Pr through the parser's own conversion, the reference temperature midway,
// and the conduction profile as the initial state.
inline void make_rayleigh_benard(Case& c, double rayleigh, double prandtl, Units units, VelocityBC v,
                                 double T_bottom = 1.0, double T_top = 0.0) {
  set_plates(c, v, T_bottom, T_top);
  c.physics = physics_from_rayleigh(rayleigh, prandtl, units, c.length(2), T_bottom - T_top);
  c.physics.reference_temperature = 0.5 * (T_bottom + T_top);
  c.initial.profile = TemperatureProfile::conduction;
  c.initial.bottom = T_bottom;
  c.initial.top = T_top;
}

// Sets every point of a field, ghosts included, to f(x, y, z) at the point's position.
inline void set_field(Field<double>& field, const Grid& g, const std::function<double(double, double, double)>& f) {
  const Layout& L = g.layout;
  std::vector<double> h(L.size, 0);
  const Box box = L.padded(field.stagger());
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i)
        h[L.origin + L.index(i, j, k)] = f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                                           g.coordinate(field.stagger(), 2, k));
  field.from_host(h);
}

// max |field - f| over a box of points.
inline double max_error(const Field<double>& field, const Grid& g, const Box& box,
                        const std::function<double(double, double, double)>& f) {
  const Layout& L = g.layout;
  const std::vector<double> h = field.to_host();
  double err = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) {
        const double exact = f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                               g.coordinate(field.stagger(), 2, k));
        err = std::fmax(err, std::fabs(h[L.origin + L.index(i, j, k)] - exact));
      }
  return err;
}

// The CUDA backend, or a visible skip where this machine has no GPU.
#define BOUSS_GPU_OR_SKIP()                                                          \
  if (!::bouss::Backend::cuda_available()) GTEST_SKIP() << "no CUDA device present"; \
  const ::bouss::Backend gpu = ::bouss::Backend::cuda()

}  // namespace bouss::test
