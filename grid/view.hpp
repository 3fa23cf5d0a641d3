// A trivially copyable window onto one padded array, captured by value in kernels
// (AMReX's Array4 habit). View<const T> marks an input: on the GPU its loads go through
// the read-only data cache (__ldg), today's form of paper 004's texture-cached stencils;
// a build with BOUSS_GLOBAL_LOADS=plain, cg or tex (CMakeLists.txt) loads them plainly,
// from L2 alone, or through a linear texture object that the Field holds (grid/texture.hpp;
// views without one, over arrays that are not Fields, use __ldg), for paper 004's Table I.
// Indices are relative to the interior origin (0,0,0); with congruent padding the
// flat offset idx = i + j*sy + k*sz is the same for every field of a grid.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "grid/config.hpp"

namespace bouss {

#if defined(BOUSS_LOADS_TEX)
// The texture of the Field a view reads, and the view's origin within it.
#define BOUSS_VIEW_TEXTURE_MEMBERS \
  std::uint64_t texture = 0;       \
  std::ptrdiff_t texture_origin = 0;
#if defined(__CUDA_ARCH__)
template <class T>
__device__ inline T texture_load(std::uint64_t texture, std::ptrdiff_t i, const T* fallback) {
  if constexpr (std::is_same<T, double>::value) {
    if (texture) {
      const int2 v = tex1Dfetch<int2>(texture, int(i));
      return __hiloint2double(v.y, v.x);
    }
  } else if constexpr (std::is_same<T, float>::value) {
    if (texture) return tex1Dfetch<float>(texture, int(i));
  }
  return __ldg(fallback);
}
#endif
#else
#define BOUSS_VIEW_TEXTURE_MEMBERS
#endif

template <class T>
struct View {
  T* origin = nullptr;  // address of (0,0,0)
  std::ptrdiff_t sy = 0, sz = 0;
  std::ptrdiff_t lo = 0, hi = 0;  // valid offsets [lo, hi) relative to origin (bounds checks)
  BOUSS_VIEW_TEXTURE_MEMBERS

  BOUSS_HD std::ptrdiff_t index(int i, int j, int k) const { return i + j * sy + k * sz; }
  BOUSS_HD T& operator[](std::ptrdiff_t idx) const {
#ifndef NDEBUG
    assert(idx >= lo && idx < hi);
#endif
    return origin[idx];
  }
  BOUSS_HD T& operator()(int i, int j, int k) const { return (*this)[index(i, j, k)]; }
};

template <class T>
struct View<const T> {
  const T* __restrict__ origin = nullptr;
  std::ptrdiff_t sy = 0, sz = 0;
  std::ptrdiff_t lo = 0, hi = 0;
  BOUSS_VIEW_TEXTURE_MEMBERS

  View() = default;
  View(const T* o, std::ptrdiff_t y, std::ptrdiff_t z, std::ptrdiff_t l, std::ptrdiff_t h)
      : origin(o), sy(y), sz(z), lo(l), hi(h) {}
  // A writable view converts to a read-only one.
  View(const View<T>& v) : origin(v.origin), sy(v.sy), sz(v.sz), lo(v.lo), hi(v.hi) {
#if defined(BOUSS_LOADS_TEX)
    texture = v.texture;
    texture_origin = v.texture_origin;
#endif
  }

  BOUSS_HD std::ptrdiff_t index(int i, int j, int k) const { return i + j * sy + k * sz; }
  BOUSS_HD T operator[](std::ptrdiff_t idx) const {
#ifndef NDEBUG
    assert(idx >= lo && idx < hi);
#endif
#if defined(__CUDA_ARCH__) && defined(BOUSS_LOADS_PLAIN)
    return origin[idx];
#elif defined(__CUDA_ARCH__) && defined(BOUSS_LOADS_CG)
    return __ldcg(origin + idx);
#elif defined(__CUDA_ARCH__) && defined(BOUSS_LOADS_TEX)
    return texture_load<T>(texture, texture_origin + idx, origin + idx);
#elif defined(__CUDA_ARCH__)
    return __ldg(origin + idx);
#else
    return origin[idx];
#endif
  }
  BOUSS_HD T operator()(int i, int j, int k) const { return (*this)[index(i, j, k)]; }
};

static_assert(std::is_trivially_copyable<View<double>>::value, "View must be trivially copyable");
static_assert(std::is_trivially_copyable<View<const double>>::value, "View must be trivially copyable");

}  // namespace bouss
