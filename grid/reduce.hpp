// Reductions of a pointwise expression over a box: CUB's DeviceReduce on the GPU,
// OpenMP partial results combined in a fixed order on the CPU. The result comes back
// to the host (a scalar diagnostic: the only device-to-host traffic of the time loop).
#pragma once

#include <cstdint>
#include <vector>

#include "grid/backend.hpp"
#include "grid/box.hpp"
#include "grid/config.hpp"
#include "grid/for_each.hpp"

#if defined(__CUDACC__)
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace bouss {

struct MaxOp {
  template <class T>
  BOUSS_HD T operator()(T a, T b) const { return a > b ? a : b; }
};
struct SumOp {
  template <class T>
  BOUSS_HD T operator()(T a, T b) const { return a + b; }
};

namespace detail {
// Maps a linear point number of the box to f(i, j, k).
template <class F>
struct BoxPoint {
  F f;
  int i0, j0, k0, ni, nj;
  BOUSS_HD auto operator()(std::int64_t n) const {
    const int i = int(n % ni);
    const std::int64_t r = n / ni;
    const int j = int(r % nj);
    const int k = int(r / nj);
    return f(i0 + i, j0 + j, k0 + k);
  }
};
}  // namespace detail

template <class T, class Op, class F>
T reduce(const Backend& backend, const Box& box, T init, Op op, F f, const char* what = "reduce") {
  if (box.empty()) return init;
  if (backend.is_cuda()) {
#if defined(__CUDACC__)
    detail::BoxPoint<F> map{f, box.lo[0], box.lo[1], box.lo[2], box.extent(0), box.extent(1)};
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), map);
    const std::int64_t count = box.cells();
    std::size_t temp_bytes = 0;
    const cudaStream_t stream = static_cast<cudaStream_t>(backend.stream());
    cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, static_cast<T*>(nullptr), count, op, init, stream);
    const std::size_t offset = (temp_bytes + 255) / 256 * 256;
    char* scratch = static_cast<char*>(backend.scratch(offset + sizeof(T)));
    T* out = reinterpret_cast<T*>(scratch + offset);
    cub::DeviceReduce::Reduce(scratch, temp_bytes, in, out, count, op, init, stream);
    check_launch(what);
    T result{};
    copy_bytes(&result, Backend::cpu(), out, backend, sizeof(T));
    return result;
#else
    throw std::logic_error(std::string(what) + ": CUDA reduction from a unit not compiled as CUDA");
#endif
  }
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const int ni = box.extent(0), nj = box.extent(1), nk = box.extent(2);
#ifdef _OPENMP
  std::vector<T> partial(omp_get_max_threads(), init);
#pragma omp parallel if (box.cells() >= cpu_parallel_min_points)
  {
    T local = init;
#pragma omp for collapse(2) schedule(static)
    for (int k = k0; k < k0 + nk; ++k)
      for (int j = j0; j < j0 + nj; ++j)
        for (int i = i0; i < i0 + ni; ++i) local = op(local, f(i, j, k));
    partial[omp_get_thread_num()] = local;
  }
  T result = init;
  for (const T& p : partial) result = op(result, p);  // fixed order: reproducible
  return result;
#else
  T result = init;
  for (int k = k0; k < k0 + nk; ++k)
    for (int j = j0; j < j0 + nj; ++j)
      for (int i = i0; i < i0 + ni; ++i) result = op(result, f(i, j, k));
  return result;
#endif
}

}  // namespace bouss
