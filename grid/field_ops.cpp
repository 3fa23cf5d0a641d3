// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/field_ops.hpp"

#include <cmath>

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"

namespace bouss {

void fill(Field<Real>& f, Real value) {
  const View<Real> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), f.layout().padded(f.stagger()), [=] BOUSS_HD(int i, int j, int k) {
    v[i + j * sy + k * sz] = value;
  }, "fill");
}

Real sum(const Field<Real>& f, const Box& box) {
  const View<const Real> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  return reduce(f.backend(), box, Real(0), SumOp{},
                [=] BOUSS_HD(int i, int j, int k) { return v[i + j * sy + k * sz]; }, "sum");
}

Real max_abs(const Field<Real>& f, const Box& box) {
  const View<const Real> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  return reduce(f.backend(), box, Real(0), MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) { return fabs(v[i + j * sy + k * sz]); }, "max_abs");
}

void add_constant(Field<Real>& f, const Box& box, Real value) {
  const View<Real> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), box, [=] BOUSS_HD(int i, int j, int k) { v[i + j * sy + k * sz] += value; },
           "add_constant");
}

Real remove_mean(Field<Real>& f) {
  const Box box = f.layout().interior(Stagger::centre);
  const Real mean = sum(f, box) / Real(box.cells());
  add_constant(f, box, -mean);
  return mean;
}

Real max_abs_difference(const Field<Real>& a, const Field<Real>& b, const Box& box) {
  const View<const Real> va = a.cview(), vb = b.cview();
  const std::ptrdiff_t sy = va.sy, sz = va.sz;
  return reduce(a.backend(), box, Real(0), MaxOp{}, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    return fabs(va[idx] - vb[idx]);
  }, "max_abs_difference");
}

}  // namespace bouss

#include <algorithm>
#include <vector>

namespace bouss {

double measure_copy_bandwidth(const Backend& backend, std::size_t bytes, int repeats) {
  const long n = long(bytes / sizeof(Real));
  Real* src = static_cast<Real*>(backend.allocate(n * sizeof(Real)));
  Real* dst = static_cast<Real*>(backend.allocate(n * sizeof(Real)));
  // Rows of 4096 values, so that the CPU loop has rows to share among its threads.
  constexpr int row = 4096;
  const Box box{{0, 0, 0}, {row, int(n / row), 1}};
  for_each(backend, box, [=] BOUSS_HD(int i, int j, int) {
    src[i + std::ptrdiff_t(j) * row] = Real(i);
    dst[i + std::ptrdiff_t(j) * row] = 0;
  }, "copy bandwidth init");
  auto copy = [&] {
    for_each(backend, box, [=] BOUSS_HD(int i, int j, int) {
      dst[i + std::ptrdiff_t(j) * row] = src[i + std::ptrdiff_t(j) * row];
    }, "copy bandwidth");
  };
  copy();
  backend.synchronize();
  std::vector<double> ms;
  RegionTimer timer(backend);
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    copy();
    ms.push_back(timer.stop_ms());
  }
  backend.deallocate(src);
  backend.deallocate(dst);
  std::sort(ms.begin(), ms.end());
  return 2.0 * double(box.cells()) * sizeof(Real) / (ms[ms.size() / 2] * 1e-3);
}

}  // namespace bouss
