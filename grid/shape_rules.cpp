// The rules every grid shape obeys (grid/shape_rules.hpp).
#include "grid/shape_rules.hpp"

#include <cstdlib>

#include "grid/coarsening.hpp"

namespace bouss {
namespace {

// "[16,16,16]", as JSON writes the counts.
std::string as_list(const std::array<std::int64_t, 3>& n) {
  return "[" + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) + "]";
}

std::string shape(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

int odd_part(int n) {
  while (n % 2 == 0) n /= 2;
  return n;
}

}  // namespace

int nearest_coarsenable_size(int n) {
  long best = 1;
  for (long m = 1; m <= max_odd_factor; ++m) {
    for (long size = m; size <= max_axis_cells; size *= 2) {
      const long d = std::abs(size - n), best_d = std::abs(best - n);
      if (d < best_d || (d == best_d && size > best)) best = size;
    }
  }
  return static_cast<int>(best);
}

std::optional<std::string> grid_shape_problem(const std::array<std::int64_t, 3>& n,
                                              const std::array<bool, 3>& periodic) {
  const std::string given = as_list(n);
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 1) return "expected 3 positive integers, got " + given;
  }
  for (int a = 0; a < 3; ++a) {
    if (n[a] > max_axis_cells) {
      return "expected at most " + std::to_string(max_axis_cells) +
             " cells per axis (the largest y and z dimension of a CUDA launch grid), got " + given;
    }
  }
  const char* axes = "xyz";
  for (int a = 0; a < 3; ++a) {
    if (n[a] == 1 && !periodic[a]) {
      return "expected a periodic axis wherever n is 1 (a one-cell axis is a 2D run's unused "
             "direction, and must be periodic), got " + given + " with " + axes[a] + " not periodic";
    }
  }
  const std::array<int, 3> cells{static_cast<int>(n[0]), static_cast<int>(n[1]), static_cast<int>(n[2])};
  if (multigrid_can_coarsen(cells)) return std::nullopt;
  const auto coarsest = multigrid_levels(cells).back();
  std::array<std::int64_t, 3> suggestion = n;
  for (int a = 0; a < 3; ++a) {
    if (odd_part(cells[a]) > max_odd_factor) suggestion[a] = nearest_coarsenable_size(cells[a]);
  }
  return "expected a grid the multigrid can coarsen (it halves each even axis until all "
         "are odd; the coarsest grid may have at most " +
         std::to_string(max_coarsest_cells) + " cells), got " + given + ", whose coarsest grid is " +
         shape(coarsest) + " = " + std::to_string(cell_count(coarsest)) + " cells; use sizes m*2^k with m <= " +
         std::to_string(max_odd_factor) + ", e.g. " + as_list(suggestion);
}

}  // namespace bouss
