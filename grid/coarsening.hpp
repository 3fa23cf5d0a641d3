// How the geometric multigrid coarsens a grid: every axis whose cell count is even
// is halved, the others stay (semicoarsening), until no axis can be halved.
// The coarsest grid is solved directly, so its cell count is bounded.
#pragma once

#include <array>
#include <vector>

namespace bouss {

// Largest coarsest grid the direct coarse solve accepts (dense Cholesky on the host).
constexpr long max_coarsest_cells = 1024;

// Shapes of all levels, finest first.
inline std::vector<std::array<int, 3>> multigrid_levels(const std::array<int, 3>& n) {
  std::vector<std::array<int, 3>> levels{n};
  for (;;) {
    auto c = levels.back();
    bool any = false;
    for (int a = 0; a < 3; ++a) {
      if (c[a] % 2 == 0) {
        c[a] /= 2;
        any = true;
      }
    }
    if (!any) break;
    levels.push_back(c);
  }
  return levels;
}

inline long cell_count(const std::array<int, 3>& n) { return long(n[0]) * n[1] * n[2]; }

inline bool multigrid_can_coarsen(const std::array<int, 3>& n) {
  return cell_count(multigrid_levels(n).back()) <= max_coarsest_cells;
}

}  // namespace bouss
