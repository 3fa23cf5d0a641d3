// Helpers shared by the test suites: cases built in code, fields set from functions.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "config/case.hpp"
#include "config/units.hpp"

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

// The precision a test runs in, for names and messages: "double" or "float".
template <class R>
const char* precision_name() {
  return sizeof(R) == sizeof(float) ? "float" : "double";
}

// The tolerance rule of every check whose answer is exact in exact arithmetic (an operator
// on the polynomial it reproduces, a ghost fill on a field that satisfies its condition),
// in either precision R:
//
//   |computed - exact| < 4 eps_R * size,
//
// size being the size of the values involved: the largest |value| the operation reads (the
// check's function over the points it reads; for a flux, the product of its two factors)
// times the largest factor it scales one by (1/h for a difference, 1/h^2 for the
// Laplacian, a diffusivity or buoyancy coefficient). The inputs are rounded to R once (half
// an epsilon of each value) and each operation rounds once more, so the error is a few
// epsilons of that size: measured on the CPU at most 1.8 eps * size in double and 1.0 in
// float. On the operator checks' grid 1/h reaches 4 and 1/h^2 16, so the allowance is 16
// eps of the values read for a difference and 64 for the Laplacian; in double no check's
// tolerance exceeds 8.7e-13 (it was 1e-12 for the operators and ghost fills, 1e-11 for
// advection). Copies (periodic ghosts, mirrored walls) are exact and compared bit for bit.
constexpr double roundoff_epsilons = 4;
template <class R>
double roundoff_tolerance(double size) {
  return roundoff_epsilons * double(std::numeric_limits<R>::epsilon()) * size;
}

// Expects err within the round-off of an exact operation on values of `size`.
template <class R>
void expect_roundoff(double err, double size, const std::string& what) {
  EXPECT_LT(err, roundoff_tolerance<R>(size)) << what << " in " << precision_name<R>() << ", size " << size;
}

// The two precisions of typed test suites: TYPED_TEST_SUITE(Suite, Precisions) runs each
// test as Suite/0.Name (double) and Suite/1.Name (float), which ctest lists as
// Suite.Name<double> and Suite.Name<float> (select one with ctest -R '<float>').
using Precisions = ::testing::Types<double, float>;

// A Field<R> must be laid out for its element size (Grid::make's elem_bytes = sizeof(R)),
// and the grid a helper indexes it by must be the field's: throws (the test fails) when not.
template <class R>
void require_layout_for(const Field<R>& field, const Grid& g) {
  if (field.layout().elem_bytes != sizeof(R))
    throw std::logic_error(field.name() + ": a " + precision_name<R>() + " field on a layout made for " +
                           std::to_string(field.layout().elem_bytes) + "-byte values");
  if (g.layout.size != field.layout().size || g.layout.sy != field.layout().sy || g.layout.sz != field.layout().sz)
    throw std::logic_error(field.name() + ": the grid's layout is not the field's");
}

// Sets every point of a field, ghosts included, to f(x, y, z) at the point's position:
// computed in double, stored in the field's precision R (rounded once).
template <class R>
void set_field(Field<R>& field, const Grid& g, const std::function<double(double, double, double)>& f) {
  require_layout_for(field, g);
  const Layout& L = g.layout;
  std::vector<R> h(L.size, R(0));
  const Box box = L.padded(field.stagger());
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i)
        h[L.origin + L.index(i, j, k)] = R(f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                                             g.coordinate(field.stagger(), 2, k)));
  field.from_host(h);
}

// max |field - f| over a box of points, in double (the field's values converted exactly).
template <class R>
double max_error(const Field<R>& field, const Grid& g, const Box& box,
                 const std::function<double(double, double, double)>& f) {
  require_layout_for(field, g);
  const Layout& L = g.layout;
  const std::vector<R> h = field.to_host();
  double err = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) {
        const double exact = f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                               g.coordinate(field.stagger(), 2, k));
        err = std::fmax(err, std::fabs(double(h[L.origin + L.index(i, j, k)]) - exact));
      }
  return err;
}

// max |f| over a box of points of stagger s: the size of the values a check involves.
inline double max_abs_over(const Grid& g, Stagger s, const Box& box,
                           const std::function<double(double, double, double)>& f) {
  double m = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i)
        m = std::fmax(m, std::fabs(f(g.coordinate(s, 0, i), g.coordinate(s, 1, j), g.coordinate(s, 2, k))));
  return m;
}

// The CUDA backend, or a visible skip where this machine has no GPU.
#define BOUSS_GPU_OR_SKIP()                                                          \
  if (!::bouss::Backend::cuda_available()) GTEST_SKIP() << "no CUDA device present"; \
  const ::bouss::Backend gpu = ::bouss::Backend::cuda()

// A layout's values on the host: its interior uniform in [-1, 1) (seeded), ghosts and padding 0.
template <class R>
std::vector<R> random_interior(const Layout& L, unsigned seed) {
  std::vector<R> host(std::size_t(L.size), R(0));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) host[L.origin + L.index(i, j, k)] = R(U(rng));
  return host;
}

}  // namespace bouss::test
