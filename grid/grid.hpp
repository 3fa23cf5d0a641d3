// The geometry of one uniform C-grid: its layout and spacings. Cell (i,j,k) spans
// [lo + i h, lo + (i+1) h] per axis; T and p sit at centres, u, v, w on the x-, y-, z-faces.
// The geometry is double whatever the fields' precision; the layout's rows are aligned for
// the fields' element size (elem_bytes).
#pragma once

#include <array>
#include <cstddef>

#include "grid/config.hpp"
#include "grid/layout.hpp"

namespace bouss {

// Values first + step k along the z-levels k of a grid (interior index from 0): how a
// function linear in z reaches a kernel, in double.
struct LevelLine {
  double first = 0, step = 0;
  BOUSS_HD double operator()(int k) const { return first + step * k; }
};

struct Grid {
  Layout layout;
  std::array<double, 3> lo{};  // domain origin
  std::array<double, 3> h{};   // spacing

  static Grid make(const std::array<int, 3>& n, const std::array<double, 3>& lo,
                   const std::array<double, 3>& length, int ghost = 1, std::size_t elem_bytes = sizeof(double)) {
    Grid g;
    g.layout = Layout::make(n, ghost, elem_bytes);
    g.lo = lo;
    for (int a = 0; a < 3; ++a) g.h[a] = length[a] / n[a];
    return g;
  }
  const std::array<int, 3>& n() const { return layout.n; }
  // Coordinate of point index i along axis a for a field of stagger s.
  double coordinate(Stagger s, int a, int i) const {
    return lo[a] + (i + (staggered_along(s, a) ? 0.0 : 0.5)) * h[a];
  }
  double cell_volume() const { return h[0] * h[1] * h[2]; }
};

}  // namespace bouss
