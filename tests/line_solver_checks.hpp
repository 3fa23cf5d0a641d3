// Checks of the vertical-line pressure solver (solver/multigrid/line_multigrid.hpp) that run on any
// backend: the unit suite calls them on the CPU, the gpu suite on CUDA.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "grid/field_ops.hpp"
#include "grid/stretching.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "solver/line/line_pcg.hpp"
#include "solver/model_problem.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "solver/volume_mean.hpp"
#include "test_support.hpp"

namespace bouss::test {

// Walls (gradient 0, the pressure's condition) on every face except those named periodic.
inline FieldBC pressure_walls(bool periodic_x, bool periodic_y) {
  FieldBC bc;
  for (int f = 0; f < 6; ++f) bc.face[f] = FaceBC{BoundaryKind::gradient, 0, 0};
  if (periodic_x) bc.face[0] = bc.face[1] = FaceBC{};
  if (periodic_y) bc.face[2] = bc.face[3] = FaceBC{};
  return bc;
}

// A random right-hand side (seeded), its mean left for the solver to remove.
template <class R>
void random_rhs(Field<R>& b, const Grid& g, unsigned seed) {
  b.from_host(random_interior<R>(g.layout, seed));
}

// The mean factor per cycle over cycles 2.. of a solve (the first cycle's is often better).
inline double factor_per_cycle(const SolveStats& s) {
  const auto& h = s.residual_history;
  if (h.size() < 3) return 0;
  return std::pow(h.back() / h[1], 1.0 / double(h.size() - 2));
}

// Solves lap x = b for a random b with `solver` and returns what it did.
template <class R>
SolveStats solve_random(PressureSolver<R>& solver, const Grid& g, const Backend& be, double tolerance,
                        unsigned seed = 3, Field<R>* out = nullptr) {
  Field<R> x(be, g.layout, Stagger::centre, "x"), b(be, g.layout, Stagger::centre, "b");
  fill(x, 0);
  fill(b, 0);
  random_rhs(b, g, seed);
  const SolveStats s = solver.solve(x, b, tolerance);
  if (out) out->copy_from(x);
  return s;
}

// The model problem's line solvers (shift 1/omega^2, its conditions).
template <class R>
std::unique_ptr<PressureSolver<R>> model_solver(const std::string& name, const ModelProblem& mp, const Grid& g,
                                                const Backend& be) {
  if (name == "line_pcg") {
    LinePcgOptions o;
    o.shift = mp.shift();
    return std::make_unique<LinePcg<R>>(be, g, mp.conditions(), o);
  }
  LineMultigridOptions o;
  o.shift = mp.shift();
  return std::make_unique<LineMultigrid<R>>(be, g, mp.conditions(), o);
}

// max |a - b| / max |b| over the interior.
template <class R>
double relative_difference(const Field<R>& a, const Field<R>& b, const Grid& g) {
  const std::vector<R> ha = a.to_host(), hb = b.to_host();
  double size = 0, worst = 0;
  const auto& n = g.layout.n;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const auto idx = g.layout.origin + g.layout.index(i, j, k);
        size = std::max(size, std::fabs(double(hb[idx])));
        worst = std::max(worst, std::fabs(double(ha[idx]) - double(hb[idx])));
      }
  return worst / size;
}

// A box periodic in x and y with walls in z (the Fourier solver's), uniform or tanh-stretched.
inline Grid fourier_grid(bool stretched, const std::array<int, 3>& n, std::size_t elem) {
  const std::array<double, 3> length{3.0, 2.0, 1.0};
  return stretched ? Grid::make_stretched(n, {0, 0, 0}, length, tanh_faces(n[2], 0.0, 1.0, 2.0, Cluster::both), 1, elem)
                   : Grid::make(n, {0, 0, 0}, length, 1, elem);
}

}  // namespace bouss::test
