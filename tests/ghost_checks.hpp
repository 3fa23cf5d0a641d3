// Ghost-fill checks on any backend: a field holding a function that satisfies the
// boundary condition exactly (linear along the axis for value and gradient conditions,
// periodic for periodic ones) must have every ghost equal to that function after the
// fill, whatever the ghosts held before.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "grid/boundary.hpp"
#include "test_support.hpp"

namespace bouss::test {

template <class R>
void set_interior_poison_ghosts(Field<R>& field, const Grid& g, const std::function<double(double, double, double)>& f) {
  require_layout_for(field, g);
  const Layout& L = g.layout;
  std::vector<R> h(L.size, R(1e30));
  const Box box = L.interior(field.stagger());
  for (int k = 0; k < box.hi[2]; ++k)
    for (int j = 0; j < box.hi[1]; ++j)
      for (int i = 0; i < box.hi[0]; ++i)
        h[L.origin + L.index(i, j, k)] = R(f(g.coordinate(field.stagger(), 0, i), g.coordinate(field.stagger(), 1, j),
                                             g.coordinate(field.stagger(), 2, k)));
  field.from_host(h);
}

// The interior point whose value a ghost along axis a copies, for a periodic condition or a
// mirror (a zero gradient): i for an interior point. n is the number of cells along a; a face
// field's boundary faces 0 and n are interior points.
inline int periodic_image(int i, int n) { return ((i % n) + n) % n; }
inline int mirror_image(int i, int n, bool faces) {
  if (faces) return i < 0 ? -i : i > n ? 2 * n - i : i;
  return i < 0 ? -1 - i : i >= n ? 2 * n - 1 - i : i;
}

// The largest |field - interior value it copies| over the padded points, where `image` maps
// a point's index along axis a to the interior point it copies: 0 when the fill is exact.
template <class R>
double max_copy_difference(const Field<R>& field, const Grid& g, int a, const std::function<int(int)>& image) {
  const Layout& L = g.layout;
  const std::vector<R> h = field.to_host();
  const Box box = L.padded(field.stagger());
  double diff = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) {
        int p[3] = {i, j, k};
        const R got = h[L.origin + L.index(p[0], p[1], p[2])];
        p[a] = image(p[a]);
        diff = std::fmax(diff, std::fabs(double(got) - double(h[L.origin + L.index(p[0], p[1], p[2])])));
      }
  return diff;
}

// Periodic conditions copy: every ghost equals its periodic image (index i mod n) bit for
// bit, in either precision (f, periodic, differs at the ghost's own position only by its
// evaluation in double, some eps of its argument). Value and gradient conditions compute
// 2 v - x and x -/+ (2m - 1) h g in R: a linear field is reproduced through the wall to
// round-off (test_support.hpp roundoff_tolerance, the size being the largest |value| on
// the padded points), and along the other, periodic, axes the ghosts are copies again.
template <class R>
void check_ghost_fill(const Backend& be, BoundaryKind kind, int ghost) {
  const Grid g = Grid::make({7, 6, 5}, {0.5, -1.0, 2.0}, {1.4, 3.0, 0.5}, ghost, sizeof(R));
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
      Field<R> field(be, g.layout, s, "f");
      set_interior_poison_ghosts(field, g, f);
      fill_ghosts(field, bc, g);
      const Box padded = g.layout.padded(s);
      const double size = max_abs_over(g, s, padded, f);
      // Along the other (periodic) axes f is constant: every ghost there is a copy.
      for (int b = 0; b < 3; ++b)
        if (b != a || kind == BoundaryKind::periodic) {
          const int n = g.layout.n[b];
          EXPECT_EQ(max_copy_difference(field, g, b, [n](int i) { return periodic_image(i, n); }), 0.0)
              << "periodic along axis " << b << " (axis " << a << ", " << stagger_name(s) << ", ghost " << ghost
              << ", " << precision_name<R>() << ")";
        }
      if (kind != BoundaryKind::periodic)
        EXPECT_LT(max_error(field, g, padded, f), roundoff_tolerance<R>(size))
            << "axis " << a << ", " << stagger_name(s) << ", ghost " << ghost << ", " << precision_name<R>();
    }
}

// A zero gradient mirrors: every ghost equals the interior point mirrored about the wall,
// bit for bit in either precision (free-slip tangential velocity, an insulating wall, the
// pressure's Neumann condition), for a field that is not symmetric itself.
template <class R>
void check_zero_gradient_mirrors_exactly(const Backend& be, int ghost) {
  const Grid g = Grid::make({7, 6, 5}, {0.5, -1.0, 2.0}, {1.4, 3.0, 0.5}, ghost, sizeof(R));
  const Stagger staggers[] = {Stagger::centre, Stagger::face_x, Stagger::face_y, Stagger::face_z};
  for (int a = 0; a < 3; ++a)
    for (Stagger s : staggers) {
      FieldBC bc;  // periodic everywhere but axis a
      bc.face[2 * a] = bc.face[2 * a + 1] = {BoundaryKind::gradient, 0};
      Field<R> field(be, g.layout, s, "f");
      set_interior_poison_ghosts(field, g, [a](double x, double y, double z) {
        const double p[3] = {x, y, z};
        return std::sin(1.3 * p[a] + 0.2) + 0.1 * p[(a + 1) % 3];
      });
      fill_ghosts(field, bc, g);
      const int n = g.layout.n[a];
      const bool faces = staggered_along(s, a);
      EXPECT_EQ(max_copy_difference(field, g, a, [=](int i) { return mirror_image(i, n, faces); }), 0.0)
          << "axis " << a << ", " << stagger_name(s) << ", ghost " << ghost << ", " << precision_name<R>();
    }
}

// Value conditions on a face field fix the boundary faces themselves; the unknown box
// leaves them (and the periodic duplicate face) out.
template <class R>
void check_value_condition_sets_boundary_faces(const Backend& be) {
  const Grid g = Grid::make({4, 3, 5}, {0, 0, 0}, {1, 1, 1}, 1, sizeof(R));
  FieldBC bc;
  bc.face[4] = {BoundaryKind::value, 0.25};
  bc.face[5] = {BoundaryKind::value, -0.5};
  Field<R> w(be, g.layout, Stagger::face_z, "w");
  set_interior_poison_ghosts(w, g, [](double, double, double z) { return 7 + z; });
  fill_ghosts(w, bc, g);
  const std::vector<R> h = w.to_host();
  const Layout& L = g.layout;
  EXPECT_EQ(h[L.origin + L.index(1, 1, 0)], R(0.25));
  EXPECT_EQ(h[L.origin + L.index(1, 1, 5)], R(-0.5));
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
template <class R>
void check_conducting_walls(const Backend& be) {
  const double z0 = -0.5, H = 2.0, bottom = 3.0, top = -1.0;
  const Grid g = Grid::make({6, 5, 8}, {0.0, 0.0, z0}, {1.0, 1.0, H}, 1, sizeof(R));
  FieldBC bc;
  for (int face = 0; face < 4; ++face) bc.face[face] = {BoundaryKind::value, bottom, (top - bottom) / H};
  bc.face[4] = {BoundaryKind::value, bottom, 0};
  bc.face[5] = {BoundaryKind::value, top, 0};
  auto profile = [&](double, double, double z) { return bottom + (top - bottom) * (z - z0) / H; };
  Field<R> T(be, g.layout, Stagger::centre, "T");
  set_interior_poison_ghosts(T, g, profile);
  fill_ghosts(T, bc, g);
  const Box padded = g.layout.padded(Stagger::centre);
  EXPECT_LT(max_error(T, g, padded, profile), roundoff_tolerance<R>(max_abs_over(g, Stagger::centre, padded, profile)))
      << precision_name<R>();
}

// Filling u, v, w and T together (one launch per axis) writes exactly what filling each
// alone does, every padded point compared, with a different condition on each field and
// face (periodic, value with a height slope, gradient).
template <class R>
void check_fill_together(const Backend& be, int ghost) {
  const Grid g = Grid::make({7, 6, 5}, {0.5, -1.0, 2.0}, {1.4, 3.0, 0.5}, ghost, sizeof(R));
  const Stagger staggers[4] = {Stagger::face_x, Stagger::face_y, Stagger::face_z, Stagger::centre};
  FieldBC bcs[4];
  for (int q = 0; q < 4; ++q) {
    bcs[q].face[0] = bcs[q].face[1] = {BoundaryKind::periodic, 0};
    bcs[q].face[2] = {BoundaryKind::value, 0.25 * q, 0.5 + q};
    bcs[q].face[3] = {BoundaryKind::gradient, -1.0 + q};
    bcs[q].face[4] = {q % 2 ? BoundaryKind::value : BoundaryKind::gradient, 2.0 - q};
    bcs[q].face[5] = {BoundaryKind::value, 1.0 + q};
  }
  std::vector<Field<R>> alone, together;
  for (int q = 0; q < 4; ++q) {
    auto f = [q](double x, double y, double z) { return std::sin(1.3 * x + q) + std::cos(0.7 * y - 2 * z) + q * z; };
    for (auto* set : {&alone, &together}) {
      set->emplace_back(be, g.layout, staggers[q], "f");
      set_interior_poison_ghosts(set->back(), g, f);
    }
  }
  Field<R>* fields[4];
  const FieldBC* conditions[4];
  for (int q = 0; q < 4; ++q) {
    fill_ghosts(alone[q], bcs[q], g);
    fields[q] = &together[q];
    conditions[q] = &bcs[q];
  }
  fill_ghosts(fields, conditions, 4, g);
  for (int q = 0; q < 4; ++q) {
    const std::vector<R> a = alone[q].to_host(), b = together[q].to_host();
    ASSERT_EQ(a.size(), b.size());
    long differ = 0;
    for (std::size_t p = 0; p < a.size(); ++p) differ += a[p] != b[p];
    EXPECT_EQ(differ, 0) << "field " << q << ", ghost layers " << ghost << ", " << precision_name<R>();
  }
}

}  // namespace bouss::test
