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

}  // namespace bouss
