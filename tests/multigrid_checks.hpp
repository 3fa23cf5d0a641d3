// Multigrid convergence in either precision R of the fields: where a solve's residual
// reaches round-off, and the convergence factor per V-cycle above it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "grid/field_ops.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "test_support.hpp"

namespace bouss::test {

// The relative residual max|b - lap x| / max|b| at which a solve in precision R is at
// round-off: the residual is computed in R from the 7-point Laplacian's terms, whose
// magnitudes add up to max|x| * sum_a 4/h_a^2, so it is not known better than eps_R times
// that (relative to max|b|). x is the solution, b the right-hand side the solve left (its
// mean removed for a singular problem).
template <class R>
double residual_roundoff(const Grid& g, const Field<R>& x, const Field<R>& b) {
  const Box cells = g.layout.interior(Stagger::centre);
  double terms = 0;
  for (int a = 0; a < 3; ++a) terms += 4 / (g.h[a] * g.h[a]);
  return double(std::numeric_limits<R>::epsilon()) * max_abs(x, cells) * terms / max_abs(b, cells);
}

// The convergence factors r_i / r_{i-1} of a residual history, cycle by cycle, while the
// residual stays above `margin` times the round-off level (where it stops measuring: at
// round-off a cycle no longer reduces a residual that is mostly rounding).
inline std::vector<double> factors_above_roundoff(const std::vector<double>& history, double roundoff,
                                                  double margin) {
  std::vector<double> factors;
  for (std::size_t i = 1; i < history.size() && history[i] >= margin * roundoff; ++i)
    factors.push_back(history[i] / history[i - 1]);
  return factors;
}

}  // namespace bouss::test
