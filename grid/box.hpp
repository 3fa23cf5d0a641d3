// Index boxes: half-open ranges [lo, hi) per axis, x fastest.
#pragma once

#include <array>

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

}  // namespace bouss
