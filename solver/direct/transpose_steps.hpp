// The two steps every transpose of the direct solve takes (solver/direct/slab_transform.cu,
// pencil_transform.cu): its dense copies (packing and unpacking the pieces) and its
// all-to-all, timed for `bouss bench` (parallel/rank_costs.hpp); defined in transpose_steps.cu.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "grid/backend.hpp"

namespace bouss {

// The first index of each of `parts` pieces of n, and n: as even as can be, the first ones
// the longer, so piece 0 is not empty where n is not 0 (some are where n < parts). The cuts
// of the transposes' slabs, bands and pieces.
std::vector<int> even_cuts(int n, int parts);

// Strides of a dense array's y and z (x is 1).
using Strides = std::array<std::ptrdiff_t, 2>;

// A box of `extent` values from one dense array of R to another, each indexed i + j s[0] +
// k s[1] from its own first value (the strides may order the axes differently on the two
// sides: a transpose's reordering).
template <class R>
void copy_strided(const Backend& be, const R* src, Strides s, R* dst, Strides d, std::array<int, 3> extent);

// The backend's send buffer (pieces for each rank in rank order) to its receive buffer
// (grid/device_messages.hpp: NCCL, a CUDA-aware MPI, or through the host). Collective.
void transpose_all_to_all(const Backend& be, const std::vector<std::size_t>& send_counts,
                          const std::vector<std::size_t>& receive_counts);
// The same from `send` to `receive` (within those buffers), NCCL's messages on `stream` (the
// backend's message_stream(): the caller orders it against the backend's stream).
void transpose_all_to_all(const Backend& be, const void* send, const std::vector<std::size_t>& send_counts,
                          void* receive, const std::vector<std::size_t>& receive_counts, void* stream);

}  // namespace bouss
