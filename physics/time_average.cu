// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/time_average.hpp"

#include "grid/for_each.hpp"
#include "grid/output_kernels.hpp"

namespace bouss {

void plan_sample_on(const Backend& backend, AveragingClock* clock, const StepClock* step, bool first, int every_steps,
                    const SampleHorizon& horizon) {
  const SampleHorizon h = horizon;
  for_each(backend, Box{{0, 0, 0}, {1, 1, 1}},
           [=] BOUSS_HD(int, int, int) { plan_sample(*clock, *step, first, every_steps, h); }, "plan_sample");
}

void plan_closing_sample_on(const Backend& backend, AveragingClock* clock, const StepClock* step) {
  for_each(backend, Box{{0, 0, 0}, {1, 1, 1}},
           [=] BOUSS_HD(int, int, int) { plan_closing_sample(*clock, step->time); }, "plan_closing_sample");
}

namespace {
template <class S>
std::ptrdiff_t next_along(const View<const S>& v, int axis) {
  return axis < 0 ? 0 : axis == 0 ? 1 : axis == 1 ? v.sy : v.sz;
}
// A linear range of n points as a box of rows (one row a block of the CPU's threads).
Box range_box(std::size_t n) {
  constexpr int row = 1024;
  return Box{{0, 0, 0}, {row, int((n + row - 1) / row), 1}};
}
}  // namespace

template <class S>
void accumulate_sample(const SampledField<S>& a, const SampledField<S>& b, const Box& box, const double* weight,
                       double* acc) {
  const View<const S> va = a.field->cview();
  const std::ptrdiff_t sy = va.sy, sz = va.sz;
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const std::ptrdiff_t nx = box.extent(0), nxy = nx * box.extent(1);
  const S* pa = va.origin;
  const std::ptrdiff_t next_a = next_along(va, a.average_axis);
  const LevelLine add_a = a.add;
  if (!b.field) {
    for_each(a.field->backend(), box, [=] BOUSS_HD(int i, int j, int k) {
      const std::ptrdiff_t idx = i + j * sy + k * sz;
      acc[(i - i0) + (j - j0) * nx + (k - k0) * nxy] += *weight * output_value(pa, idx, next_a, add_a(k));
    }, "time average", a.field->name().c_str());
    return;
  }
  const View<const S> vb = b.field->cview();
  const S* pb = vb.origin;
  const std::ptrdiff_t next_b = next_along(vb, b.average_axis);
  const LevelLine add_b = b.add;
  for_each(a.field->backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    acc[(i - i0) + (j - j0) * nx + (k - k0) * nxy] +=
        *weight * (output_value(pa, idx, next_a, add_a(k)) * output_value(pb, idx, next_b, add_b(k)));
  }, "time average of a product", a.field->name().c_str());
}

void clear_sums(const Backend& backend, double* acc, std::size_t n) {
  for_each(backend, range_box(n), [=] BOUSS_HD(int i, int j, int) {
    const std::size_t p = std::size_t(i) + std::size_t(j) * 1024;
    if (p < n) acc[p] = 0;
  }, "clear time sums");
}

template <class T>
void time_mean_into(const Backend& backend, const double* sum, std::size_t n, const AveragingClock* clock, T* dst) {
  for_each(backend, range_box(n), [=] BOUSS_HD(int i, int j, int) {
    const std::size_t p = std::size_t(i) + std::size_t(j) * 1024;
    if (p < n) dst[p] = T(time_mean(sum[p], clock->total));
  }, "time mean");
}

template <class T>
void time_covariance_into(const Backend& backend, const double* ab, const double* a, const double* b, std::size_t n,
                          const AveragingClock* clock, T* dst) {
  for_each(backend, range_box(n), [=] BOUSS_HD(int i, int j, int) {
    const std::size_t p = std::size_t(i) + std::size_t(j) * 1024;
    if (p < n) dst[p] = T(time_covariance(ab[p], a[p], b[p], clock->total));
  }, "time covariance");
}

template void accumulate_sample<double>(const SampledField<double>&, const SampledField<double>&, const Box&,
                                        const double*, double*);
template void accumulate_sample<float>(const SampledField<float>&, const SampledField<float>&, const Box&,
                                       const double*, double*);
template void time_mean_into<double>(const Backend&, const double*, std::size_t, const AveragingClock*, double*);
template void time_mean_into<float>(const Backend&, const double*, std::size_t, const AveragingClock*, float*);
template void time_covariance_into<double>(const Backend&, const double*, const double*, const double*, std::size_t,
                                           const AveragingClock*, double*);
template void time_covariance_into<float>(const Backend&, const double*, const double*, const double*, std::size_t,
                                          const AveragingClock*, float*);

}  // namespace bouss
