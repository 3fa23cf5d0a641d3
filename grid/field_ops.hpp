// Whole-field operations used by several layers (fill, mean, norms, shifts), for double
// and float fields; sums and norms come back in double.
#pragma once

#include <vector>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "grid/kernel_scalar.hpp"

namespace bouss {

// Every value of the padded array, ghosts included.
template <class S> void fill(Field<S>& f, double value);
// Sum and max |f| over a box of points.
template <class S> double sum(const Field<S>& f, const Box& box);
template <class S> double max_abs(const Field<S>& f, const Box& box);
// The sum into *out, memory of f's backend (a device scalar on the GPU), without waiting
// for it (grid/reduce.hpp reduce_into; read it with grid/async_value.hpp).
template <class S> void sum_into(const Field<S>& f, const Box& box, double* out);
// The sum over each z-level k of the box into out[k - box.lo[2]], memory of f's backend,
// without waiting (grid/reduce.hpp reduce_levels_into).
template <class S> void sum_levels_into(const Field<S>& f, const Box& box, double* out);
// f += value on a box.
template <class S> void add_constant(Field<S>& f, const Box& box, double value);
// x += e on a box (e laid out as x; e may be in a cheaper precision: a multigrid correction).
template <class R, class S> void add_field(Field<R>& x, const Field<S>& e, const Box& box);
// x <- x + ratio (x - previous) and previous <- x (the value before), over every value of
// the padded array: a linear extrapolation in time that keeps the value it started from
// (ratio 0: previous <- x alone). The ratio may be read on the device (the step's clock).
template <class S> void extrapolate_in_time(Field<S>& x, Field<S>& previous, KernelScalar ratio);
// Subtracts the mean over the cell interior (a centred field); returns the mean removed.
template <class S> double remove_mean(Field<S>& f);
// The same, returning max |f| over the cell interior after the removal, from one
// reduction (sum, max and min together) instead of two.
template <class S> double remove_mean_max_abs(Field<S>& f);
// Their device halves, queued without a read-back (a pressure solve of fixed passes inside a
// CUDA graph): the same reductions into `at` (backend memory: one double, the sum; three,
// the sum, max and min) and the mean subtracted by a kernel that reads it there. The same
// bits as remove_mean and remove_mean_max_abs on one rank; under several, the sum combined on
// the stream (grid/device_messages.hpp allreduce_sum_on: NCCL's order of summation where the
// messages go by NCCL, so the mean may differ from remove_mean's in its last bit), the max
// and min this rank's own.
template <class S> void remove_mean_queued(Field<S>& f, double* at);
template <class S> void remove_mean_max_abs_queued(Field<S>& f, double* at);

// The values of a box of f (points of its padded range) on the host, C order with x
// fastest, in double, `add` added to level k as pack_box adds it; and the reverse (values in
// double, stored in f's precision; std::invalid_argument when their count is not the box's).
// On a GPU they pass through the device's scratch a slab of planes (64 MiB) at a time: the
// padded field never comes to the host (whole padded copies made a 1024x1024x512 checkpoint's
// host side take 21.5 s of its 51 s on four H200s). Checkpoints and restarts use them.
constexpr std::size_t box_values_slab_bytes = std::size_t(64) << 20;  // each of the two scratch buffers at most
template <class S> std::vector<double> box_values(const Field<S>& f, const Box& box, LevelLine add = {});
template <class S> void set_box_values(Field<S>& f, const Box& box, const std::vector<double>& values);
// Those of the interior (grid/layout.hpp: Layout::interior of its stagger).
template <class S> std::vector<double> interior_values(const Field<S>& f);
template <class S> void set_interior_values(Field<S>& f, const std::vector<double>& values);

// Packs f's values over `box` (points of its padded range) into dst, memory of f's backend,
// C order with x fastest, converted to T: a snapshot's device-side staging, queued on the
// backend's stream (on the CPU: done on return). With average_axis = a (0, 1, 2), each
// value is the mean of the point and the next one along a: a face field's value at the
// cell centre between two faces (the output's u_c, v_c, w_c). `add` (in double) is added to
// the values of level k (the temperature's reference profile, physics/flow.hpp).
template <class S, class T>
void pack_box(const Field<S>& f, const Box& box, T* dst, int average_axis = -1, LevelLine add = {});
// The reverse, in the field's precision: src (backend memory, x fastest over the box) into
// the box of f.
template <class S>
void unpack_box(Field<S>& f, const Box& box, const S* src);

// Bandwidth of a plain copy kernel on this backend (bytes read + bytes written per
// second, median of `repeats` after a warm-up): the ceiling `bouss bench` reports against.
double measure_copy_bandwidth(const Backend& backend, std::size_t bytes, int repeats = 10);

}  // namespace bouss
