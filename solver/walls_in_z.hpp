// The rule every solver that solves vertical lines between walls shares (the line solvers
// and the direct solve's tridiagonal modes): z never coarsened or transformed, walls at its
// ends; and the rule of those that take uniform x and y.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "solver/pressure_solver.hpp"

namespace bouss {

inline std::optional<SolverRefusal> refuses_periodic_z(std::string_view solver, const PressureGrid& g) {
  if (!g.periodic_z || g.n[2] <= 1) return std::nullopt;
  return SolverRefusal{fmt::format("expected walls at z_lo and z_hi for \"{}\" (its vertical lines are solved as "
                                   "tridiagonal systems between walls), got a periodic z",
                                   solver),
                       true};
}

// The multigrids and the line PCG take one spacing along x and y (their stencils, their
// coarsening): a grid stretched along either is the direct solve's, through its eigenbases.
inline std::optional<SolverRefusal> refuses_stretched_xy(std::string_view solver, const PressureGrid& g) {
  if (!g.stretched_xy) return std::nullopt;
  return SolverRefusal{fmt::format("expected \"direct\" or \"auto\" on a grid stretched along x or y (\"{}\" "
                                   "takes one spacing along each of them), got \"{}\"",
                                   solver, solver),
                       true};
}

}  // namespace bouss
