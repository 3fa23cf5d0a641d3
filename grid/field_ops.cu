// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/field_ops.hpp"
#include "grid/output_kernels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"

namespace bouss {

template <class S>
void fill(Field<S>& f, double value_in) {
  const S value = S(value_in);
  const View<S> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), f.layout().padded(f.stagger()), [=] BOUSS_HD(int i, int j, int k) {
    v[i + j * sy + k * sz] = value;
  }, "fill", f.name().c_str());
}

template <class S>
double sum(const Field<S>& f, const Box& box) {
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  return reduce(f.backend(), box, double(0), SumOp{},
                [=] BOUSS_HD(int i, int j, int k) { return double(v[i + j * sy + k * sz]); }, "sum");
}

template <class S>
void sum_into(const Field<S>& f, const Box& box, double* out) {
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  reduce_into(f.backend(), box, double(0), SumOp{},
              [=] BOUSS_HD(int i, int j, int k) { return double(v[i + j * sy + k * sz]); }, out, "sum");
}

template <class S>
void sum_levels_into(const Field<S>& f, const Box& box, double* out) {
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  reduce_levels_into(f.backend(), box, double(0), SumOp{},
                     [=] BOUSS_HD(int i, int j, int k) { return double(v[i + j * sy + k * sz]); }, out, "sum of levels");
}

template <class S>
double max_abs(const Field<S>& f, const Box& box) {
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  return reduce(f.backend(), box, double(0), MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) { return fabs(double(v[i + j * sy + k * sz])); }, "max_abs");
}

template <class S>
void add_constant(Field<S>& f, const Box& box, double value_in) {
  const S value = S(value_in);
  const View<S> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), box, [=] BOUSS_HD(int i, int j, int k) { v[i + j * sy + k * sz] += value; },
           "add_constant", f.name().c_str());
}

template <class R, class S>
void add_field(Field<R>& x, const Field<S>& e, const Box& box) {
  const View<R> xv = x.view();
  const View<const S> ev = e.cview();
  const std::ptrdiff_t sy = xv.sy, sz = xv.sz;
  for_each(x.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    xv[idx] += R(ev[idx]);
  }, "add_field", x.name().c_str());
}
template void add_field<double, double>(Field<double>&, const Field<double>&, const Box&);
template void add_field<double, float>(Field<double>&, const Field<float>&, const Box&);
template void add_field<float, float>(Field<float>&, const Field<float>&, const Box&);

template <class S>
void extrapolate_in_time(Field<S>& x, Field<S>& previous, KernelScalar ratio) {
  const View<S> xv = x.view(), pv = previous.view();
  const std::ptrdiff_t sy = xv.sy, sz = xv.sz;
  for_each(x.backend(), x.layout().padded(x.stagger()), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    const S now = xv[idx];
    xv[idx] = now + S(ratio()) * (now - pv[idx]);
    pv[idx] = now;
  }, "extrapolate_in_time", x.name().c_str());
}
template void extrapolate_in_time<double>(Field<double>&, Field<double>&, KernelScalar);
template void extrapolate_in_time<float>(Field<float>&, Field<float>&, KernelScalar);

namespace {
// The points of the box on every rank together (the means of a cut grid are the whole's).
template <class S>
double cells_on_all_ranks(const Field<S>& f, const Box& box) {
  return combine_across_ranks(f.backend().ranks(), double(box.cells()), SumOp{});
}
}  // namespace

template <class S>
double remove_mean(Field<S>& f) {
  const Box box = f.layout().interior(Stagger::centre);
  const double mean = sum(f, box) / cells_on_all_ranks(f, box);
  add_constant(f, box, -mean);
  return mean;
}

namespace {
// f -= sum / cells over the box, the sum read where a reduction left it: the arithmetic of
// add_constant(f, box, -(sum / cells)).
template <class S>
void subtract_mean_at(Field<S>& f, const Box& box, const double* sum) {
  const View<S> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const double cells = cells_on_all_ranks(f, box);
  for_each(f.backend(), box, [=] BOUSS_HD(int i, int j, int k) { v[i + j * sy + k * sz] += S(-(*sum / cells)); },
           "remove_mean (queued)", f.name().c_str());
}
}  // namespace

template <class S>
void remove_mean_queued(Field<S>& f, double* at) {
  const Box box = f.layout().interior(Stagger::centre);
  sum_into(f, box, at);
  subtract_mean_at(f, box, at);
}

namespace {
struct SumMaxMin {
  double sum, max, min;
};
struct SumMaxMinOp {
  BOUSS_HD SumMaxMin operator()(const SumMaxMin& a, const SumMaxMin& b) const {
    return {a.sum + b.sum, MaxOp{}(a.max, b.max), MinOp{}(a.min, b.min)};  // NaN propagates
  }
};
}  // namespace

template <class S>
double remove_mean_max_abs(Field<S>& f) {
  const Box box = f.layout().interior(Stagger::centre);
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const SumMaxMin init{0, -INFINITY, INFINITY};
  const SumMaxMin r = reduce(f.backend(), box, init, SumMaxMinOp{}, [=] BOUSS_HD(int i, int j, int k) {
    const double x = double(v[i + j * sy + k * sz]);
    return SumMaxMin{x, x, x};
  }, "remove_mean_max_abs");
  const double mean = r.sum / cells_on_all_ranks(f, box);
  add_constant(f, box, -mean);
  // Rounding is monotonic, so the extremes of f - mean are those of f, shifted: the same
  // max |f - mean| as a second pass over the shifted field would find.
  const S m = S(mean);
  return std::fmax(double(S(r.max) - m), double(m - S(r.min)));
}

template <class S>
void remove_mean_max_abs_queued(Field<S>& f, double* at) {
  const Box box = f.layout().interior(Stagger::centre);
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const SumMaxMin init{0, -INFINITY, INFINITY};
  static_assert(sizeof(SumMaxMin) == 3 * sizeof(double), "at[0..2] holds sum, max, min");
  // This rank's sum, max and min; under several ranks the sums combined on the stream
  // (reduce_into would combine the three through the host).
  reduce_into(f.backend().with_ranks(Communicator::self()), box, init, SumMaxMinOp{}, [=] BOUSS_HD(int i, int j, int k) {
    const double x = double(v[i + j * sy + k * sz]);
    return SumMaxMin{x, x, x};
  }, reinterpret_cast<SumMaxMin*>(at), "remove_mean_max_abs (queued)");
  allreduce_sum_on(f.backend(), at, 1);
  subtract_mean_at(f, box, at);
}

namespace {
// The planes of `box` in one slab of doubles of box_values_slab_bytes at most (one plane at least).
int slab_planes(const Box& box) {
  const std::size_t plane = std::size_t(box.extent(0)) * std::size_t(box.extent(1)) * sizeof(double);
  const std::size_t fit = box_values_slab_bytes / std::max<std::size_t>(plane, 1);
  return int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(box.extent(2)), fit)));
}
}  // namespace

template <class S>
std::vector<double> box_values(const Field<S>& f, const Box& box, LevelLine add) {
  std::vector<double> out(std::size_t(box.cells()));
  const Backend& be = f.backend();
  if (out.empty()) return out;
  if (!be.is_cuda()) {
    pack_box(f, box, out.data(), -1, add);
    return out;
  }
  const std::size_t plane = std::size_t(box.extent(0)) * std::size_t(box.extent(1));
  const int planes = slab_planes(box);
  for (int k = box.lo[2]; k < box.hi[2]; k += planes) {
    Box slab = box;
    slab.lo[2] = k;
    slab.hi[2] = std::min(box.hi[2], k + planes);
    const std::size_t bytes = std::size_t(slab.cells()) * sizeof(double);
    double* scratch = static_cast<double*>(be.buffer(Backend::Buffer::send, bytes));
    pack_box(f, slab, scratch, -1, add);
    copy_bytes(out.data() + std::size_t(k - box.lo[2]) * plane, Backend::cpu(), scratch, be, bytes);
  }
  return out;
}

template <class S>
void set_box_values(Field<S>& f, const Box& box, const std::vector<double>& values) {
  if (values.size() != std::size_t(box.cells()))
    throw std::invalid_argument("field " + f.name() + ": " + std::to_string(values.size()) + " values for " +
                                std::to_string(box.cells()) + " points");
  if (values.empty()) return;
  const Backend& be = f.backend();
  const View<S> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const std::size_t plane = std::size_t(box.extent(0)) * std::size_t(box.extent(1));
  const int planes = be.is_cuda() ? slab_planes(box) : box.extent(2);
  for (int k = box.lo[2]; k < box.hi[2]; k += planes) {
    Box slab = box;
    slab.lo[2] = k;
    slab.hi[2] = std::min(box.hi[2], k + planes);
    const double* src = values.data() + std::size_t(k - box.lo[2]) * plane;
    if (be.is_cuda()) {  // the last slab's unpack is queued before this copy on the stream
      const std::size_t bytes = std::size_t(slab.cells()) * sizeof(double);
      double* scratch = static_cast<double*>(be.buffer(Backend::Buffer::receive, bytes));
      copy_bytes(scratch, be, src, Backend::cpu(), bytes);
      src = scratch;
    }
    const int i0 = slab.lo[0], j0 = slab.lo[1], k0 = slab.lo[2];
    const std::ptrdiff_t nx = slab.extent(0), nxy = nx * slab.extent(1);
    for_each(be, slab, [=] BOUSS_HD(int i, int j, int k) {
      v[i + j * sy + k * sz] = S(src[(i - i0) + (j - j0) * nx + (k - k0) * nxy]);
    }, "set box values", f.name().c_str());
  }
  be.synchronize();
}

template <class S>
std::vector<double> interior_values(const Field<S>& f) {
  return box_values(f, f.layout().interior(f.stagger()));
}

template <class S>
void set_interior_values(Field<S>& f, const std::vector<double>& values) {
  set_box_values(f, f.layout().interior(f.stagger()), values);
}

template <class S, class T>
void pack_box(const Field<S>& f, const Box& box, T* dst, int average_axis, LevelLine add) {
  const View<const S> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const std::ptrdiff_t nx = box.extent(0), nxy = nx * box.extent(1);
  const std::ptrdiff_t next = average_axis < 0 ? 0 : average_axis == 0 ? 1 : average_axis == 1 ? sy : sz;
  const S* values = v.origin;
  for_each(f.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    dst[(i - i0) + (j - j0) * nx + (k - k0) * nxy] = T(output_value(values, i + j * sy + k * sz, next, add(k)));
  }, next == 0 ? "pack for output" : "pack cell means for output", f.name().c_str());
}

template <class S>
void unpack_box(Field<S>& f, const Box& box, const S* src) {
  const View<S> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const std::ptrdiff_t nx = box.extent(0), nxy = nx * box.extent(1);
  for_each(f.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    v[i + j * sy + k * sz] = src[(i - i0) + (j - j0) * nx + (k - k0) * nxy];
  }, "unpack", f.name().c_str());
}
template void unpack_box<double>(Field<double>&, const Box&, const double*);
template void unpack_box<float>(Field<float>&, const Box&, const float*);

#define BOUSS_FIELD_OPS(S)                                     \
  template void fill<S>(Field<S>&, double);                      \
  template double sum<S>(const Field<S>&, const Box&);           \
  template void sum_into<S>(const Field<S>&, const Box&, double*); \
  template void sum_levels_into<S>(const Field<S>&, const Box&, double*); \
  template double max_abs<S>(const Field<S>&, const Box&);       \
  template void add_constant<S>(Field<S>&, const Box&, double);  \
  template double remove_mean<S>(Field<S>&);                     \
  template double remove_mean_max_abs<S>(Field<S>&);            \
  template void remove_mean_queued<S>(Field<S>&, double*);       \
  template void remove_mean_max_abs_queued<S>(Field<S>&, double*); \
  template std::vector<double> box_values<S>(const Field<S>&, const Box&, LevelLine); \
  template void set_box_values<S>(Field<S>&, const Box&, const std::vector<double>&); \
  template std::vector<double> interior_values<S>(const Field<S>&); \
  template void set_interior_values<S>(Field<S>&, const std::vector<double>&);
BOUSS_FIELD_OPS(double)
BOUSS_FIELD_OPS(float)
template void pack_box<double, double>(const Field<double>&, const Box&, double*, int, LevelLine);
template void pack_box<double, float>(const Field<double>&, const Box&, float*, int, LevelLine);
template void pack_box<float, double>(const Field<float>&, const Box&, double*, int, LevelLine);
template void pack_box<float, float>(const Field<float>&, const Box&, float*, int, LevelLine);
#undef BOUSS_FIELD_OPS


}  // namespace bouss

#include <algorithm>
#include <vector>

namespace bouss {

double measure_copy_bandwidth(const Backend& backend, std::size_t bytes, int repeats) {
  const long n = long(bytes / sizeof(double));
  double* src = static_cast<double*>(backend.allocate(n * sizeof(double)));
  double* dst = static_cast<double*>(backend.allocate(n * sizeof(double)));
  // Rows of 4096 values, so that the CPU loop has rows to share among its threads.
  constexpr int row = 4096;
  const Box box{{0, 0, 0}, {row, int(n / row), 1}};
  for_each(backend, box, [=] BOUSS_HD(int i, int j, int) {
    src[i + std::ptrdiff_t(j) * row] = double(i);
    dst[i + std::ptrdiff_t(j) * row] = 0;
  }, "copy bandwidth init");
  auto copy = [&] {
    for_each(backend, box, [=] BOUSS_HD(int i, int j, int) {
      dst[i + std::ptrdiff_t(j) * row] = src[i + std::ptrdiff_t(j) * row];
    }, "copy bandwidth");
  };
  const double ms = median_ms(backend, repeats, copy);
  backend.deallocate(src);
  backend.deallocate(dst);
  return 2.0 * double(box.cells()) * sizeof(double) / (ms * 1e-3);
}

}  // namespace bouss
