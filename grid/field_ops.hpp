// Whole-field operations used by several layers (fill, mean, norms, shifts).
#pragma once

#include "grid/field.hpp"

namespace bouss {

// Every value of the padded array, ghosts included.
void fill(Field<Real>& f, Real value);
// Sum and max |f| over a box of points.
Real sum(const Field<Real>& f, const Box& box);
Real max_abs(const Field<Real>& f, const Box& box);
// f += value on a box.
void add_constant(Field<Real>& f, const Box& box, Real value);
// Subtracts the mean over the cell interior (a centred field); returns the mean removed.
Real remove_mean(Field<Real>& f);
// max |a - b| over a box (same layout, same backend).
Real max_abs_difference(const Field<Real>& a, const Field<Real>& b, const Box& box);

}  // namespace bouss

namespace bouss {
// Bandwidth of a plain copy kernel on this backend (bytes read + bytes written per
// second, median of `repeats` after a warm-up): the ceiling `bouss bench` reports against.
double measure_copy_bandwidth(const Backend& backend, std::size_t bytes, int repeats = 10);
}  // namespace bouss
