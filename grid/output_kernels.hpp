// The value an output takes at one point of a field, pointwise for both backends: the point's
// own value, or (along `next`, the stride to the next point of an axis) the mean of it and
// the next: a face field at the cell centre between two faces (u_c, v_c, w_c); `add` (in
// double) is added after (the temperature's reference profile at the point's level).
// Snapshots (grid/field_ops.hpp pack_box) and time averages (physics/time_average.hpp) read
// the fields through it.
#pragma once

#include <cstddef>

#include "grid/backend.hpp"

namespace bouss {

template <class S>
BOUSS_HD inline double output_value(const S* v, std::ptrdiff_t idx, std::ptrdiff_t next, double add) {
  return next == 0 ? double(v[idx]) + add : double(S(0.5) * (v[idx] + v[idx + next])) + add;
}

}  // namespace bouss
