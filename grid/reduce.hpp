// Reductions of a pointwise expression over a box: CUB's DeviceReduce on the GPU, fixed
// blocks of rows combined in a fixed order on the CPU (the same sum whatever the number
// of OpenMP threads, so that a run restarted on another machine continues bit for bit).
//
// reduce_into() leaves the result in the backend's memory (a device scalar on the GPU),
// ordered on the backend's stream, for the host to read later without stalling the device
// (grid/async_value.hpp); reduce() returns it to the host and waits for it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "grid/box.hpp"
#include "grid/config.hpp"
#include "grid/device_messages.hpp"
#include "grid/for_each.hpp"
#include "parallel/communicator.hpp"

#if defined(__CUDACC__)
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
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

// The first point number of level k of a box of `plane` points per level: the segment
// offsets of the segmented reduction (level k is the segment [k plane, (k+1) plane)).
struct LevelStart {
  std::int64_t plane;
  BOUSS_HD std::int64_t operator()(std::int64_t k) const { return k * plane; }
};

// CPU blocking: rows (j, k) are grouped into blocks of about this many points, a block
// reduced in order by one thread, the blocks combined in order. Depends on the box alone.
constexpr long cpu_reduce_block_points = 8192;
}  // namespace detail

namespace detail {
// Places in the backend's scratch memory (CUB's storage, then results) start on 256 bytes.
inline std::size_t scratch_aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

[[noreturn]] inline void not_a_cuda_unit(const char* what) {
  throw std::logic_error(std::string(what) + ": CUDA reduction from a unit not compiled as CUDA");
}

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
  const std::size_t offset = scratch_aligned(temp_bytes);
  char* scratch = static_cast<char*>(backend.scratch(offset + (out ? 0 : sizeof(T))));
  if (!out) out = reinterpret_cast<T*>(scratch + offset);
  cub::DeviceReduce::Reduce(scratch, temp_bytes, in, out, count, op, init, stream);
  check_launch(what, backend);
  return out;
#else
  (void)backend, (void)box, (void)init, (void)op, (void)f, (void)out;
  not_a_cuda_unit(what);
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

// Rows of a level in one segment of the GPU's level reduction: the largest divisor of nj
// whose rows hold at most about 4096 points. CUB gives a segment one thread block; one
// segment per level left the H200 with 129 blocks of 65536 points each for a 256x256x128
// grid, latency-bound at 0.46 ms, where 16 segments of 16 rows a level fill the device.
inline int level_segment_rows(int ni, int nj) {
  int rows = 1;
  for (int r = 1; r <= nj; ++r)
    if (nj % r == 0 && std::int64_t(r) * ni <= 4096) rows = r;
  return rows;
}

// Sums each level's segments in order (the second stage of the GPU's level reduction).
template <class T, class Op>
struct LevelOfSegments {
  const T* parts;
  T* out;
  T init;
  Op op;
  int segments;
  BOUSS_HD void operator()(int k, int, int) const {
    T r = init;
    for (int s = 0; s < segments; ++s) r = op(r, parts[std::int64_t(k) * segments + s]);
    out[k] = r;
  }
};

// CUB's segmented reduction on the backend's stream, each z-level of the box cut into
// segments of whole rows (level_segment_rows), then each level's segments combined in order
// by a small kernel, into out[0 .. levels), or, when out is null, into `levels` slots of the
// backend's scratch memory past CUB's temporary storage and the segments' results; returns
// where the results are.
template <class T, class Op, class F>
T* reduce_levels_on_device(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what) {
#if defined(__CUDACC__)
  const int ni = box.extent(0), nj = box.extent(1);
  const int rows = level_segment_rows(ni, nj), per_level = nj / rows;
  BoxPoint<F> map{f, box.lo[0], box.lo[1], box.lo[2], ni, nj};
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), map);
  auto starts = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                LevelStart{std::int64_t(ni) * rows});
  const std::int64_t levels = box.extent(2), segments = levels * per_level;
  const cudaStream_t stream = static_cast<cudaStream_t>(backend.stream());
  std::size_t temp_bytes = 0;
  cub::DeviceSegmentedReduce::Reduce(nullptr, temp_bytes, in, static_cast<T*>(nullptr), segments, starts, starts + 1,
                                     op, init, stream);
  const std::size_t parts_at = scratch_aligned(temp_bytes);
  const std::size_t out_at = scratch_aligned(parts_at + std::size_t(segments) * sizeof(T));
  char* scratch = static_cast<char*>(backend.scratch(out_at + (out ? 0 : std::size_t(levels) * sizeof(T))));
  if (!out) out = reinterpret_cast<T*>(scratch + out_at);
  T* parts = reinterpret_cast<T*>(scratch + parts_at);
  cub::DeviceSegmentedReduce::Reduce(scratch, temp_bytes, in, parts, segments, starts, starts + 1, op, init, stream);
  check_launch(what, backend);
  for_each(backend, Box{{0, 0, 0}, {int(levels), 1, 1}}, LevelOfSegments<T, Op>{parts, out, init, op, per_level}, what);
  return out;
#else
  (void)backend, (void)box, (void)init, (void)op, (void)f, (void)out;
  not_a_cuda_unit(what);
#endif
}

// The CPU's: each level reduced as a box of its own, so that a level's result is exactly what
// reduce() over that level gives.
template <class T, class Op, class F>
void reduce_levels_on_host(const Box& box, T init, Op op, F f, T* out) {
  for (int k = box.lo[2]; k < box.hi[2]; ++k) {
    Box level = box;
    level.lo[2] = k;
    level.hi[2] = k + 1;
    out[k - box.lo[2]] = reduce_on_host(level, init, op, f);
  }
}

// This rank's levels.
template <class T, class Op, class F>
T* reduce_levels_here(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what) {
  const int levels = box.extent(2);
  if (levels == 0) return out;
  if (box.empty()) {  // levels with no points: init each
    if (!out) out = static_cast<T*>(backend.scratch(std::size_t(levels) * sizeof(T)));
    const std::vector<T> inits(levels, init);
    copy_bytes(out, backend, inits.data(), Backend::cpu(), inits.size() * sizeof(T));
    return out;
  }
  if (backend.is_cuda()) return reduce_levels_on_device(backend, box, init, op, f, out, what);
  if (!out) out = static_cast<T*>(backend.scratch(std::size_t(levels) * sizeof(T)));
  reduce_levels_on_host(box, init, op, f, out);
  return out;
}

// Where the levels go: `out`, or the backend's scratch when out is null (see reduce_levels_to_scratch);
// across ranks, each level combined in rank order.
template <class T, class Op, class F>
T* reduce_levels(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what) {
  out = reduce_levels_here(backend, box, init, op, f, out, what);
  const int levels = box.extent(2);
  if (backend.ranks().alone() || levels == 0) return out;
  std::vector<T> mine(levels);
  copy_bytes(mine.data(), Backend::cpu(), out, backend, mine.size() * sizeof(T));
  combine_across_ranks(backend.ranks(), mine.data(), levels, op);
  copy_bytes(out, backend, mine.data(), Backend::cpu(), mine.size() * sizeof(T));
  return out;
}
}  // namespace detail

// Reduces f over the box into *out, which lives in the backend's memory (device memory
// on the GPU, host memory on the CPU). On the GPU the work is queued on the backend's
// stream and *out is ready once the stream reaches this point.
//
// Under several ranks (Backend::ranks) every reduction is collective: each rank reduces its
// part, then the parts are combined in rank order (combine_across_ranks), the same value on
// every rank; every rank must make the call, with an empty box where it holds nothing. The
// combination goes through the host, so that reduce_into then waits for the device; except
// a max or a sum of doubles, combined on the stream (allreduce_max_on, allreduce_sum_on:
// NCCL's all-reduce where the messages go by NCCL, in NCCL's order of summation), where a
// NaN on any rank arrives as +inf on every rank (a max) or propagates (a sum).
template <class T, class Op, class F>
void reduce_into(const Backend& backend, const Box& box, T init, Op op, F f, T* out, const char* what = "reduce") {
  if (box.empty()) copy_bytes(out, backend, &init, Backend::cpu(), sizeof(T));
  else if (backend.is_cuda()) detail::reduce_on_device(backend, box, init, op, f, out, what);
  else *out = detail::reduce_on_host(box, init, op, f);
  if (backend.ranks().alone()) return;
  if constexpr (std::is_same_v<Op, MaxOp> && std::is_same_v<T, double>) {
    // A max of doubles (the step's state check) on the stream: with NCCL nothing waits on
    // the host (grid/device_messages.hpp). A NaN goes as +inf, which every max keeps.
    for_each(backend, Box{{0, 0, 0}, {1, 1, 1}}, [=] BOUSS_HD(int, int, int) {
      if (*out != *out) *out = HUGE_VAL;
    }, "a NaN as +inf before the ranks' max");
    allreduce_max_on(backend, out, 1);
    return;
  }
  if constexpr (std::is_same_v<Op, SumOp> && std::is_same_v<T, double>) {
    allreduce_sum_on(backend, out, 1);
    return;
  }
  T mine{};
  copy_bytes(&mine, Backend::cpu(), out, backend, sizeof(T));
  const T all = combine_across_ranks(backend.ranks(), mine, op);
  copy_bytes(out, backend, &all, Backend::cpu(), sizeof(T));
}

// The same, returned to the host (waits for the device).
template <class T, class Op, class F>
T reduce(const Backend& backend, const Box& box, T init, Op op, F f, const char* what = "reduce") {
  T result = init;
  if (box.empty()) {
  } else if (!backend.is_cuda()) {
    result = detail::reduce_on_host(box, init, op, f);
  } else {
    const T* out = detail::reduce_on_device(backend, box, init, op, f, static_cast<T*>(nullptr), what);
    copy_bytes(&result, Backend::cpu(), out, backend, sizeof(T));
  }
  return combine_across_ranks(backend.ranks(), result, op);
}

// Reduces f(i, j, k) over each z-level k of the box (all its i and j) into out[k - box.lo[2]],
// memory of the backend, queued on its stream without waiting (as reduce_into). The same
// result run to run: on the CPU each level is exactly reduce() over that level's box; on the
// GPU CUB segments of whole rows, each level's combined in order (its order of summation
// differs from reduce()'s).
template <class T, class Op, class F>
void reduce_levels_into(const Backend& backend, const Box& box, T init, Op op, F f, T* out,
                        const char* what = "reduce levels") {
  detail::reduce_levels(backend, box, init, op, f, out, what);
}

// The same into the backend's scratch memory (on the GPU just past CUB's temporary storage),
// returning where the box.extent(2) results are: for results that the next kernel on the
// backend's stream consumes, so that the caller keeps no buffer of its own. They stay valid,
// in stream order, until the next reduction on this backend (or any other use of its scratch).
template <class T, class Op, class F>
T* reduce_levels_to_scratch(const Backend& backend, const Box& box, T init, Op op, F f,
                            const char* what = "reduce levels") {
  return detail::reduce_levels(backend, box, init, op, f, static_cast<T*>(nullptr), what);
}

}  // namespace bouss
