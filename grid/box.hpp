// Index boxes: half-open ranges [lo, hi) per axis, x fastest.
#pragma once

#include <array>

#include "grid/config.hpp"

namespace bouss {

struct Box {
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{0, 0, 0};

  int extent(int a) const { return hi[a] > lo[a] ? hi[a] - lo[a] : 0; }
  long cells() const { return long(extent(0)) * extent(1) * extent(2); }
  bool empty() const { return cells() == 0; }
};

// The points two boxes share (empty when none).
inline Box intersect(const Box& a, const Box& b) {
  Box r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = a.lo[d] > b.lo[d] ? a.lo[d] : b.lo[d];
    r.hi[d] = a.hi[d] < b.hi[d] ? a.hi[d] : b.hi[d];
    if (r.hi[d] < r.lo[d]) r.hi[d] = r.lo[d];
  }
  return r;
}

// A Box's bounds [lo, hi) as plain ints, for kernels to test points against.
struct IndexRange {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  BOUSS_HD bool contains(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
  static IndexRange of(const Box& b) {
    IndexRange r;
    for (int a = 0; a < 3; ++a) {
      r.lo[a] = b.lo[a];
      r.hi[a] = b.hi[a];
    }
    return r;
  }
};

}  // namespace bouss
