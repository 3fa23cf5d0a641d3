#include "solver/model_problem.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid/stretching.hpp"

namespace bouss {

double ModelProblem::h() const { return 1.0 / std::min(n[0], n[1]); }

Grid ModelProblem::grid(std::size_t elem) const {
  for (int a = 0; a < 3; ++a)
    if (n[a] < 1) throw std::invalid_argument("model problem: expected a positive number of cells on each axis");
  if (!(cfl > 0) || !(depth > 0)) throw std::invalid_argument("model problem: expected nu_CFL > 0 and H > 0");
  const double height = depth / lambda();
  const std::array<double, 3> length{1.0, 1.0, height};
  if (stretching > 0)
    return Grid::make_stretched(n, {0, 0, 0}, length, tanh_faces(n[2], 0.0, height, stretching, Cluster::both), 1, elem);
  return Grid::make(n, {0, 0, 0}, length, 1, elem);
}

FieldBC ModelProblem::conditions() const {
  FieldBC bc;
  for (int f = 0; f < 4; ++f) bc.face[f] = periodic ? FaceBC{} : FaceBC{BoundaryKind::value, 0, 0};
  bc.face[4] = bc.face[5] = FaceBC{BoundaryKind::gradient, 0, 0};
  return bc;
}

}  // namespace bouss
