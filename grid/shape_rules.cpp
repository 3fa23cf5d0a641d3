// The rules every grid shape obeys (grid/shape_rules.hpp).
#include "grid/shape_rules.hpp"


namespace bouss {
namespace {

// "[16,16,16]", as JSON writes the counts.
std::string as_list(const std::array<std::int64_t, 3>& n) {
  return "[" + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) + "]";
}

}  // namespace

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
  return std::nullopt;
}

}  // namespace bouss
