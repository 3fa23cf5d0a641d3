// The rules every grid shape obeys, wherever a shape is given (a case's /grid/n, `bouss bench
// poisson --n`): three positive cell counts, at most max_axis_cells per axis, and an axis of
// one cell periodic (it is a 2D run's unused direction). Whether the pressure solver can work
// on the shape is the solver's to say (solver/registry.hpp SolverType::refuses).
// config/case.hpp's check_grid_shape turns a broken rule into a CaseError.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace bouss {

// Kernels launch one CUDA block layer per z plane and tile y in blocks (grid/for_each.hpp);
// a launch grid's y and z dimensions hold at most 65535. Every axis gets the same limit,
// so that which axis is the long one never matters.
constexpr std::int64_t max_axis_cells = 65535;

// The first rule that cell counts `n` (of any size: a case may hold 1e12) break, with the
// axes' periodicity, as "expected ..., got [nx,ny,nz]..." (a message to follow "WHERE: "),
// or nothing when the shape is a valid grid. The rules are checked in the order above.
std::optional<std::string> grid_shape_problem(const std::array<std::int64_t, 3>& n,
                                              const std::array<bool, 3>& periodic);

}  // namespace bouss
