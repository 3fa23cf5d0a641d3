// Ghost-fill checks on any backend: a field holding a function that satisfies the
// boundary condition exactly (linear along the axis for value and gradient conditions,
// periodic for periodic ones) must have every ghost equal to that function after the
// fill, whatever the ghosts held before.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "grid/boundary.hpp"
#include "test_support.hpp"

namespace bouss::test {

inline void set_interior_poison_ghosts(Field<double>& field, const Grid& g,
                                       const std::function<double(double, double, double)>& f) {
  const Layout& L = g.layout;
  std::vector<double> h(L.size, 1e30);
  const Box box = L.interior(field.stagger());
  for (int k = 0; k < box.hi[2]; ++k)
    for (int j = 0; j < box.hi[1]; ++j)
      for (int i = 0; i < box.hi[0]; ++i)
        h[L.origin + L.index(i, j, k)] = f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                                           g.coordinate(field.stagger(), 2, k));
  field.from_host(h);
}

inline void check_ghost_fill(const Backend& be, BoundaryKind kind, int ghost) {
  const Grid g = Grid::make({7, 6, 5}, {0.5, -1.0, 2.0}, {1.4, 3.0, 0.5}, ghost);
  const double L[3] = {1.4, 3.0, 0.5}, lo[3] = {0.5, -1.0, 2.0};
  const Stagger staggers[] = {Stagger::centre, Stagger::face_x, Stagger::face_y, Stagger::face_z};
  for (int a = 0; a < 3; ++a)
    for (Stagger s : staggers) {
      const double alpha = 0.75, beta = -1.5;
      std::function<double(double, double, double)> f;
      FieldBC bc;  // periodic everywhere but axis a
      if (kind == BoundaryKind::periodic) {
        f = [=](double x, double y, double z) {
          const double p[3] = {x, y, z};
          return 1 + std::sin(2 * M_PI * (p[a] - lo[a]) / L[a]) + 0.5 * std::cos(4 * M_PI * (p[a] - lo[a]) / L[a]);
        };
      } else {
        f = [=](double x, double y, double z) {
          const double p[3] = {x, y, z};
          return alpha + beta * p[a];
        };
        bc.face[2 * a] = {kind, kind == BoundaryKind::value ? alpha + beta * lo[a] : beta};
        bc.face[2 * a + 1] = {kind, kind == BoundaryKind::value ? alpha + beta * (lo[a] + L[a]) : beta};
      }
      Field<double> field(be, g.layout, s, "f");
      set_interior_poison_ghosts(field, g, f);
      fill_ghosts(field, bc, g.h);
      EXPECT_LT(max_error(field, g, g.layout.padded(s), f), 1e-12)
          << "axis " << a << ", " << stagger_name(s) << ", ghost " << ghost;
    }
}

// Value conditions on a face field fix the boundary faces themselves; the unknown box
// leaves them (and the periodic duplicate face) out.
inline void check_value_condition_sets_boundary_faces(const Backend& be) {
  const Grid g = Grid::make({4, 3, 5}, {0, 0, 0}, {1, 1, 1});
  FieldBC bc;
  bc.face[4] = {BoundaryKind::value, 0.25};
  bc.face[5] = {BoundaryKind::value, -0.5};
  Field<double> w(be, g.layout, Stagger::face_z, "w");
  set_interior_poison_ghosts(w, g, [](double, double, double z) { return 7 + z; });
  fill_ghosts(w, bc, g.h);
  const std::vector<double> h = w.to_host();
  const Layout& L = g.layout;
  EXPECT_EQ(h[L.origin + L.index(1, 1, 0)], 0.25);
  EXPECT_EQ(h[L.origin + L.index(1, 1, 5)], -0.5);
  const Box unknown = unknown_box(L, Stagger::face_z, bc);
  EXPECT_EQ(unknown.lo[2], 1);
  EXPECT_EQ(unknown.hi[2], 5);
  const Box periodic_unknown = unknown_box(L, Stagger::face_x, bc);
  EXPECT_EQ(periodic_unknown.hi[0], 4) << "face n duplicates face 0 under a periodic condition";
}

}  // namespace bouss::test

namespace bouss::test {

// A conducting side wall holds the conduction profile: value conditions on x and y faces
// that vary linearly with height reproduce a field linear in z through the walls.
inline void check_conducting_walls(const Backend& be) {
  const double z0 = -0.5, H = 2.0, bottom = 3.0, top = -1.0;
  const Grid g = Grid::make({6, 5, 8}, {0.0, 0.0, z0}, {1.0, 1.0, H});
  FieldBC bc;
  for (int face = 0; face < 4; ++face) bc.face[face] = {BoundaryKind::value, bottom, (top - bottom) / H};
  bc.face[4] = {BoundaryKind::value, bottom, 0};
  bc.face[5] = {BoundaryKind::value, top, 0};
  auto profile = [&](double, double, double z) { return bottom + (top - bottom) * (z - z0) / H; };
  Field<double> T(be, g.layout, Stagger::centre, "T");
  set_interior_poison_ghosts(T, g, profile);
  fill_ghosts(T, bc, g.h);
  EXPECT_LT(max_error(T, g, g.layout.padded(Stagger::centre), profile), 1e-12);
}

// Filling u, v, w and T together (one launch per axis) writes exactly what filling each
// alone does, every padded point compared, with a different condition on each field and
// face (periodic, value with a height slope, gradient).
inline void check_fill_together(const Backend& be, int ghost) {
  const Grid g = Grid::make({7, 6, 5}, {0.5, -1.0, 2.0}, {1.4, 3.0, 0.5}, ghost);
  const Stagger staggers[4] = {Stagger::face_x, Stagger::face_y, Stagger::face_z, Stagger::centre};
  FieldBC bcs[4];
  for (int q = 0; q < 4; ++q) {
    bcs[q].face[0] = bcs[q].face[1] = {BoundaryKind::periodic, 0};
    bcs[q].face[2] = {BoundaryKind::value, 0.25 * q, 0.5 + q};
    bcs[q].face[3] = {BoundaryKind::gradient, -1.0 + q};
    bcs[q].face[4] = {q % 2 ? BoundaryKind::value : BoundaryKind::gradient, 2.0 - q};
    bcs[q].face[5] = {BoundaryKind::value, 1.0 + q};
  }
  std::vector<Field<double>> alone, together;
  for (int q = 0; q < 4; ++q) {
    auto f = [q](double x, double y, double z) { return std::sin(1.3 * x + q) + std::cos(0.7 * y - 2 * z) + q * z; };
    for (auto* set : {&alone, &together}) {
      set->emplace_back(be, g.layout, staggers[q], "f");
      set_interior_poison_ghosts(set->back(), g, f);
    }
  }
  Field<double>* fields[4];
  const FieldBC* conditions[4];
  for (int q = 0; q < 4; ++q) {
    fill_ghosts(alone[q], bcs[q], g.h);
    fields[q] = &together[q];
    conditions[q] = &bcs[q];
  }
  fill_ghosts(fields, conditions, 4, g.h);
  for (int q = 0; q < 4; ++q) {
    const std::vector<double> a = alone[q].to_host(), b = together[q].to_host();
    ASSERT_EQ(a.size(), b.size());
    long differ = 0;
    for (std::size_t p = 0; p < a.size(); ++p) differ += a[p] != b[p];
    EXPECT_EQ(differ, 0) << "field " << q << ", ghost layers " << ghost;
  }
}

}  // namespace bouss::test
