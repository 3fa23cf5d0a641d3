// Reductions of a pointwise expression over a box: CUB's DeviceReduce on the GPU, fixed
// blocks of rows combined in a fixed order on the CPU (the same sum whatever the number
// of OpenMP threads, so that a run restarted on another machine continues bit for bit).
//
// reduce_into() leaves the result in the backend's memory (a device scalar on the GPU),
// ordered on the backend's stream, for the host to read later without stalling the device
// (grid/async_value.hpp); reduce() returns it to the host and waits for it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
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

namespace bouss {

// Max and min that propagate NaN: a NaN anywhere in the box makes the result NaN, so a
// blown-up state cannot hide behind a comparison (`a > b ? a : b` drops a NaN b).
struct MaxOp {
  template <class T>
  BOUSS_HD T operator()(T a, T b) const { return (a > b || a != a) ? a : b; }
};
struct MinOp {
  template <class T>
  BOUSS_HD T operator()(T a, T b) const { return (a < b || a != a) ? a : b; }
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

// CPU blocking: rows (j, k) are grouped into blocks of about this many points, a block
// reduced in order by one thread, the blocks combined in order. Depends on the box alone.
constexpr long cpu_reduce_block_points = 8192;
}  // namespace detail

namespace detail {
// CUB's reduction on the backend's stream into *out, or, when out is null, into a slot of the
// backend's scratch memory just past CUB's temporary storage; returns where the result is.
template <class T, class Op, class F>
T* reduce_on_device(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what) {
#if defined(__CUDACC__)
  BoxPoint<F> map{f, box.lo[0], box.lo[1], box.lo[2], box.extent(0), box.extent(1)};
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), map);
  const std::int64_t count = box.cells();
  const cudaStream_t stream = static_cast<cudaStream_t>(backend.stream());
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, out, count, op, init, stream);
  const std::size_t offset = (temp_bytes + 255) / 256 * 256;
  char* scratch = static_cast<char*>(backend.scratch(offset + (out ? 0 : sizeof(T))));
  if (!out) out = reinterpret_cast<T*>(scratch + offset);
  cub::DeviceReduce::Reduce(scratch, temp_bytes, in, out, count, op, init, stream);
  check_launch(what, backend);
  return out;
#else
  (void)backend, (void)box, (void)init, (void)op, (void)f, (void)out;
  throw std::logic_error(std::string(what) + ": CUDA reduction from a unit not compiled as CUDA");
#endif
}

// The CPU's reduction: fixed blocks of rows, combined in a fixed order.
template <class T, class Op, class F>
T reduce_on_host(const Box& box, T init, Op op, F f) {
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const int ni = box.extent(0), nj = box.extent(1), nk = box.extent(2);
  const long rows = long(nj) * nk;
  const long rows_per_block = std::max<long>(1, cpu_reduce_block_points / ni);
  const long blocks = (rows + rows_per_block - 1) / rows_per_block;
  std::vector<T> partial(blocks, init);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (box.cells() >= cpu_parallel_min_points)
#endif
  for (long b = 0; b < blocks; ++b) {
    T local = init;
    const long r1 = std::min(rows, (b + 1) * rows_per_block);
    for (long r = b * rows_per_block; r < r1; ++r) {
      const int j = j0 + int(r % nj), k = k0 + int(r / nj);
      for (int i = i0; i < i0 + ni; ++i) local = op(local, f(i, j, k));
    }
    partial[b] = local;
  }
  T result = init;
  for (const T& p : partial) result = op(result, p);  // fixed order: reproducible
  return result;
}
}  // namespace detail

// Reduces f over the box into *out, which lives in the backend's memory (device memory
// on the GPU, host memory on the CPU). On the GPU the work is queued on the backend's
// stream and *out is ready once the stream reaches this point.
template <class T, class Op, class F>
void reduce_into(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what = "reduce") {
  if (box.empty()) copy_bytes(out, backend, &init, Backend::cpu(), sizeof(T));
  else if (backend.is_cuda()) detail::reduce_on_device(backend, box, init, op, f, out, what);
  else *out = detail::reduce_on_host(box, init, op, f);
}

// The same, returned to the host (waits for the device).
template <class T, class Op, class F>
T reduce(const Backend& backend, const Box& box, T init, Op op, F f, const char* what = "reduce") {
  if (box.empty()) return init;
  if (!backend.is_cuda()) return detail::reduce_on_host(box, init, op, f);
  const T* out = detail::reduce_on_device(backend, box, init, op, f, static_cast<T*>(nullptr), what);
  T result{};
  copy_bytes(&result, Backend::cpu(), out, backend, sizeof(T));
  return result;
}

}  // namespace bouss
