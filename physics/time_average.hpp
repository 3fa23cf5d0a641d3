// Time averages of an output stream on the fields' backend (physics/time_average_kernels.hpp
// says the rule): the planning of each sample's weight on an AveragingClock, the weighted
// sums of fields and of products of two fields over a box, and the means and covariances
// made from them. Every call is queued on the backend's stream with no host traffic; the
// sums are double whatever the fields' precision.
#pragma once

#include <cstddef>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "physics/time_average_kernels.hpp"
#include "physics/time_step.hpp"

namespace bouss {

// The weight of a sample taken at the start of the step `step` (after plan_step), and of the
// closing sample of a window at the end of the step that `step` last planned.
void plan_sample_on(const Backend& backend, AveragingClock* clock, const StepClock* step, bool first, int every_steps,
                    const SampleHorizon& horizon);
void plan_closing_sample_on(const Backend& backend, AveragingClock* clock, const StepClock* step);

// One factor of a sample: a field read as an output reads it (grid/output_kernels.hpp: the
// mean of two faces along average_axis when >= 0, `add` per level).
template <class S>
struct SampledField {
  const Field<S>* field = nullptr;
  int average_axis = -1;
  LevelLine add;
};

// acc[p] += weight * a(p) (* b(p) when b.field is set) over the points of `box` (x fastest,
// the box's own extents: acc holds box.cells() doubles); `weight` in backend memory (the
// clock's weight).
template <class S>
void accumulate_sample(const SampledField<S>& a, const SampledField<S>& b, const Box& box, const double* weight,
                       double* acc);

// acc[p] = 0 for p < n (backend memory).
void clear_sums(const Backend& backend, double* acc, std::size_t n);

// dst[p] = sum[p] / total for p < n, converted to T; and dst[p] = the covariance of the sums
// of a b, a and b. Backend memory; `total` the clock's.
template <class T>
void time_mean_into(const Backend& backend, const double* sum, std::size_t n, const AveragingClock* clock, T* dst);
template <class T>
void time_covariance_into(const Backend& backend, const double* ab, const double* a, const double* b, std::size_t n,
                          const AveragingClock* clock, T* dst);

}  // namespace bouss
