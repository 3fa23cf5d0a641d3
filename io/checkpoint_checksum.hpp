// A checkpoint array's checksum (format 3, docs/checkpoint.md "Checksums"): the sum, modulo
// 2^64, over the array's points of a mix of each value's bits with the point's place in the
// array. The sums of the parts of any partition of the array add up to the whole's, in any
// order, so ranks that each write or read their own block check the one array together
// without any of them holding it; a flipped bit, or two values swapped, changes it (but
// with a chance of 2^-64).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "grid/box.hpp"

namespace bouss {

// The part of the checksum of an array of `extents` points (x fastest) over the points of
// `counted`, a box inside `held`: `values` hold the points of `held`, x fastest. Boxes in the
// array's own indices.
std::uint64_t checksum_part(const double* values, const Box& held, const Box& counted,
                            const std::array<std::size_t, 3>& extents);

// The checksum of `count` values at positions first, first + 1, ... of a one-dimensional array.
std::uint64_t checksum_part(const double* values, std::size_t count, std::size_t first = 0);

}  // namespace bouss
