// The registry of the pressure solvers (solver/registry.hpp).
#include "solver/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "solver/gathered_solver.hpp"

namespace bouss {

PressureGrid PressureGrid::of(const Grid& grid, const FieldBC& bc) {
  PressureGrid g;
  g.n = grid.global_n();
  g.h = grid.smallest_spacings();
  g.stretched = grid.stretched();
  g.stretched_xy = grid.stretched_horizontally();
  g.periodic_x = bc.periodic(0);
  g.periodic_y = bc.periodic(1);
  g.periodic_z = bc.periodic(2);
  g.ranks = grid.decomposition ? grid.decomposition->ranks() : 1;
  return g;
}

double PressureGrid::aspect() const {
  double widest = 0;
  for (int a = 0; a < 2; ++a)
    if (n[a] > 1) widest = std::max(widest, h[a]);
  return n[2] > 1 && widest > 0 ? widest / h[2] : 1.0;
}

const std::vector<const SolverType*>& solver_types() {
  // auto's order: the direct solve where it applies, then the line multigrid where point
  // smoothing slows down, then the point multigrid, which takes what is left.
  static const std::vector<const SolverType*> types{&fourier_type(), &line_multigrid_type(), &point_multigrid_type(),
                                                    &line_pcg_type()};
  return types;
}

const SolverType* find_solver(std::string_view name) {
  for (const SolverType* t : solver_types()) {
    if (t->name() == name) return t;
    for (const std::string_view alias : t->aliases())
      if (alias == name) return t;
  }
  return nullptr;
}

std::string canonical_solver_name(std::string_view name) {
  const SolverType* t = find_solver(name);
  return std::string(t ? t->name() : name);
}

std::string solver_names_quoted() {
  std::string names;
  for (const SolverType* t : solver_types()) names += "\"" + std::string(t->name()) + "\", ";
  return names + "\"auto\"";
}

SolverChoice choose_solver(std::string_view name, const PressureGrid& g) {
  if (name != "auto") {
    const SolverType* t = find_solver(name);
    if (!t)
      throw std::invalid_argument("expected one of " + solver_names_quoted() + ", got \"" + std::string(name) + "\"");
    return {t, "named by the case", false};
  }
  const std::vector<const SolverType*>& types = solver_types();
  for (std::size_t i = 0; i < types.size(); ++i) {
    const auto why = types[i]->suits(g);
    if (!why) continue;
    if (g.ranks >= auto_multigrid_ranks && types[i]->transposes_across_ranks()) {
      // The next that suits, where it takes the grid (else this one stays).
      for (std::size_t j = i + 1; j < types.size(); ++j) {
        const auto next = types[j]->suits(g);
        if (!next) continue;
        if (types[j]->refuses(g)) break;
        return {types[j],
                std::to_string(g.ranks) + " ranks: from " + std::to_string(auto_multigrid_ranks) +
                    ", on several nodes, the direct solve's all-to-alls cost more than a multigrid's levels (the "
                    "scaling model's crossover, docs/scaling.md; name \"direct\" to keep it); " + *next,
                true};
      }
    }
    return {types[i], *why, true};
  }
  throw std::logic_error("no pressure solver suits the grid");  // the point multigrid suits every grid
}

std::optional<SolverRefusal> solver_refuses(std::string_view name, const PressureGrid& g) {
  return choose_solver(name, g).type->refuses(g);
}

template <class R>
std::unique_ptr<PressureSolver<R>> make_solver(const SolverType& type, const Backend& backend, const Grid& grid,
                                               const FieldBC& bc, const SolverSettings& s) {
  // A grid cut over ranks: the solvers that do not work on blocks solve it whole on rank 0.
  if (grid.decomposition && !backend.ranks().alone() &&
      !type.solves_on_blocks(PressureGrid::of(grid, bc), backend.ranks().size()))
    return std::make_unique<GatheredSolver<R>>(type, s, backend, grid, bc);
  if constexpr (std::is_same_v<R, float>) return type.make_float(backend, grid, bc, s);
  else return type.make_double(backend, grid, bc, s);
}

template std::unique_ptr<PressureSolver<double>> make_solver<double>(const SolverType&, const Backend&, const Grid&,
                                                                     const FieldBC&, const SolverSettings&);
template std::unique_ptr<PressureSolver<float>> make_solver<float>(const SolverType&, const Backend&, const Grid&,
                                                                   const FieldBC&, const SolverSettings&);

}  // namespace bouss
