// Congruently padded layout (paper 004, "Congruent padding"): every array of one grid,
// cell-centred or face-centred, shares the same padded extents and strides, so the
// offset i + j*sy + k*sz addresses T, p, u, v and w alike.
//
//  - x is the fastest axis, then y, then z;
//  - `ghost` ghost layers on every side; the padded extent per axis is n + 1 + 2*ghost,
//    large enough for n+1 faces plus their ghosts;
//  - the row stride sy and plane stride sz are multiples of 128 bytes and the origin
//    (0,0,0) sits on a 128-byte boundary, so every interior row (0, j, k) starts on a
//    128-byte boundary (the H100/H200 cache line) for every staggering.
#pragma once

#include <array>
#include <cstddef>

#include "grid/box.hpp"

namespace bouss {

// Where a field's values sit on the C-grid.
enum class Stagger { centre = 0, face_x = 1, face_y = 2, face_z = 3 };

inline const char* stagger_name(Stagger s) {
  switch (s) {
    case Stagger::centre: return "centre";
    case Stagger::face_x: return "x-face";
    case Stagger::face_y: return "y-face";
    case Stagger::face_z: return "z-face";
  }
  return "?";
}

// True when the field sits on faces normal to `axis`.
inline bool staggered_along(Stagger s, int axis) { return int(s) == axis + 1; }

constexpr std::size_t row_alignment_bytes = 128;
// A build with BOUSS_PADDED_ROWS=OFF (CMakeLists.txt) packs rows and planes without
// alignment, for paper 004's Table I.
#if defined(BOUSS_UNPADDED_ROWS)
constexpr bool padded_rows = false;
#else
constexpr bool padded_rows = true;
#endif

struct Layout {
  std::array<int, 3> n{};  // cells per axis
  int ghost = 1;
  std::size_t elem_bytes = 8;
  std::ptrdiff_t sy = 0, sz = 0;  // strides in elements
  std::ptrdiff_t origin = 0;      // offset of (0,0,0) from the start of the allocation
  std::ptrdiff_t size = 0;        // elements in one allocation

  static Layout make(const std::array<int, 3>& n, int ghost, std::size_t elem_bytes) {
    Layout L;
    L.n = n;
    L.ghost = ghost;
    L.elem_bytes = elem_bytes;
    const std::ptrdiff_t align = padded_rows ? std::ptrdiff_t(row_alignment_bytes / elem_bytes) : 1;
    auto round_up = [](std::ptrdiff_t v, std::ptrdiff_t m) { return (v + m - 1) / m * m; };
    // Row: indices -ghost .. n+ghost; the leading ghosts live in the previous row's tail.
    L.sy = round_up(n[0] + 1 + 2 * ghost, align);
    L.sz = L.sy * (n[1] + 1 + 2 * ghost);
    L.origin = round_up(ghost, align) + ghost * L.sy + ghost * L.sz;
    L.size = L.origin + std::ptrdiff_t(n[2] + ghost + 1) * L.sz;
    return L;
  }

  std::ptrdiff_t index(int i, int j, int k) const { return i + j * sy + k * sz; }
  std::ptrdiff_t stride(int axis) const { return axis == 0 ? 1 : axis == 1 ? sy : sz; }
  std::size_t bytes() const { return std::size_t(size) * elem_bytes; }

  // Number of values along `axis` for a field of stagger s (cells, or faces = cells + 1).
  int points(Stagger s, int axis) const { return n[axis] + (staggered_along(s, axis) ? 1 : 0); }
  // All values of a field (boundary faces included), ghosts excluded.
  Box interior(Stagger s) const {
    return Box{{0, 0, 0}, {points(s, 0), points(s, 1), points(s, 2)}};
  }
  // Interior plus ghost layers.
  Box padded(Stagger s) const {
    return Box{{-ghost, -ghost, -ghost},
               {points(s, 0) + ghost, points(s, 1) + ghost, points(s, 2) + ghost}};
  }
  long cells() const { return long(n[0]) * n[1] * n[2]; }
};

}  // namespace bouss
