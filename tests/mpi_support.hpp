// Helpers of the MPI tests (tests/mpi), which mpirun starts on several ranks.
#pragma once

#include <array>
#include <vector>

#include "grid/decomposition.hpp"
#include "parallel/communicator.hpp"

namespace bouss {

// Every process grid of `ranks` ranks that a grid of n cells can be cut into.
inline std::vector<std::array<int, 2>> process_grids(int ranks, const std::array<int, 3>& n) {
  std::vector<std::array<int, 2>> all;
  for (int px = 1; px <= ranks; ++px)
    if (ranks % px == 0 && px <= n[0] && ranks / px <= n[1]) all.push_back({px, ranks / px});
  return all;
}

}  // namespace bouss
