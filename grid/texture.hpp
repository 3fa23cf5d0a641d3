// Linear texture objects over a backend array: paper 004's texture-cached stencils, kept
// as a build setting (BOUSS_GLOBAL_LOADS=tex) so that docs/performance.md's Table I can
// measure them against the read-only data cache (__ldg) that the default build uses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "grid/backend.hpp"

namespace bouss {

// A texture object reading `count` elements of `element_bytes` (4: float, 8: double read
// as int2) from p, or 0 where there can be none: the CPU backend, a build without CUDA,
// or more elements than the device's linear textures hold (2^28 on sm_90); loads through
// a view without a texture go through __ldg.
std::uint64_t make_linear_texture(const Backend& backend, const void* p, std::size_t count,
                                  int element_bytes);
void destroy_texture(std::uint64_t texture);

}  // namespace bouss
