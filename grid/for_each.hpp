// One kernel source, two backends: `for_each(backend, box, f)` calls f(i, j, k) for every
// point of the box, as a CUDA kernel on the GPU or an OpenMP loop on the CPU (z and y in
// parallel, a SIMD-friendly loop over x). f is a BOUSS_HD lambda capturing Views by value.
//
// Translation units that launch kernels are .cu files, compiled as CUDA when the build has
// it and as C++ otherwise (CMakeLists.txt gathers them by that rule). A .cpp unit that
// includes this header stops a CUDA build here, instead of throwing at run time on the GPU.
#pragma once

#if defined(BOUSS_HAVE_CUDA) && !defined(__CUDACC__)
#error "grid/for_each.hpp: kernel launches (for_each, reduce) belong in .cu units; rename this unit to .cu"
#endif

#include <algorithm>
#include <stdexcept>

#include "grid/backend.hpp"
#include "grid/box.hpp"
#include "grid/config.hpp"

namespace bouss {

// Boxes smaller than this run on one CPU thread: ghost fills and coarse multigrid levels
// would spend more on opening a parallel region than on the work, and on a loaded machine
// every region waits for the slowest thread's time slice.
constexpr long cpu_parallel_min_points = 32768;

// Threads in a block of a for_each launch.
constexpr int for_each_block_threads = 256;

#if defined(__CUDACC__)
namespace detail {
template <class F>
__device__ inline void for_each_point(int i0, int j0, int k0, int ni, int nj, const F& f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) f(i0 + i, j0 + j, k0 + int(blockIdx.z));
}

template <class F>
__global__ void for_each_kernel(int i0, int j0, int k0, int ni, int nj, F f) {
  for_each_point(i0, j0, k0, ni, nj, f);
}

template <int MinBlocks, class F>
__global__ void __launch_bounds__(for_each_block_threads, MinBlocks)
    for_each_kernel_bounded(int i0, int j0, int k0, int ni, int nj, F f) {
  for_each_point(i0, j0, k0, ni, nj, f);
}

// The most blocks a CUDA grid holds along y and along z.
constexpr int max_grid_yz = 65535;
// Threads along x first (coalesced rows), the rest of a block of `threads` along y.
inline dim3 block_shape(int ni, int threads = for_each_block_threads) {
  int bx = 1;
  while (bx < ni && bx < 128 && bx < threads) bx *= 2;
  return dim3(bx, threads / bx, 1);
}
}  // namespace detail
#endif

// MinBlocksPerSM > 0 asks the compiler to fit that many blocks on a multiprocessor at once
// (__launch_bounds__: at most 65536 / (256 MinBlocksPerSM) registers a thread). A launch site
// sets it where it measured the compiler's own register choice to run far from the memory
// bandwidth (physics/flow.cu's step: 36 registers at 6x the time of 60). BlockThreads (at most
// for_each_block_threads) smaller spreads a launch of few long-running threads (a direct
// solve's mode lines on a small or 2D grid) over more multiprocessors.
template <int MinBlocksPerSM = 0, int BlockThreads = for_each_block_threads, class F>
void for_each(const Backend& backend, const Box& box, F f, const char* what = "for_each", const char* field = nullptr) {
  static_assert(BlockThreads >= 32 && BlockThreads <= for_each_block_threads, "for_each: 32 to 256 threads a block");
  if (box.empty()) return;
  const int i0 = box.lo[0], j0 = box.lo[1], k0 = box.lo[2];
  const int ni = box.extent(0), nj = box.extent(1), nk = box.extent(2);
  if (backend.is_cuda()) {
#if defined(__CUDACC__)
    const dim3 block = detail::block_shape(ni, BlockThreads);
    const auto stream = static_cast<cudaStream_t>(backend.stream());
    // A grid's y and z extents stop at 65535 blocks: a box taller than that (many lines of a
    // few points, one a row) goes in launches of at most that many rows of blocks.
    const int rows = detail::max_grid_yz * int(block.y);
    for (int k = 0; k < nk; k += detail::max_grid_yz)
      for (int j = 0; j < nj; j += rows) {
        const int nj_part = std::min(rows, nj - j), nk_part = std::min(detail::max_grid_yz, nk - k);
        const dim3 grid((ni + block.x - 1) / block.x, (nj_part + block.y - 1) / block.y, nk_part);
        if constexpr (MinBlocksPerSM > 0)
          detail::for_each_kernel_bounded<MinBlocksPerSM><<<grid, block, 0, stream>>>(i0, j0 + j, k0 + k, ni, nj_part, f);
        else
          detail::for_each_kernel<<<grid, block, 0, stream>>>(i0, j0 + j, k0 + k, ni, nj_part, f);
        check_launch(what, backend, field);
      }
    return;
#else
    (void)field;
    throw std::logic_error(std::string(what) + ": CUDA launch from a unit not compiled as CUDA");
#endif
  }
  (void)field;
#ifdef _OPENMP
#pragma omp parallel for collapse(2) schedule(static) if (box.cells() >= cpu_parallel_min_points)
#endif
  for (int k = k0; k < k0 + nk; ++k)
    for (int j = j0; j < j0 + nj; ++j) {
#ifdef _OPENMP
#pragma omp simd
#endif
      for (int i = i0; i < i0 + ni; ++i) f(i, j, k);
    }
}

}  // namespace bouss
