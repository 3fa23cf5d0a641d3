// Fields of one grid carried onto another of the same box (a run started from another run's
// state at another resolution: config/case.hpp InitialCondition::from), on the host, in
// double, axis by axis (tensor products of 1D operations):
//
// - remap_cells: cell averages (T), conservatively: each source cell's values are
//   reconstructed linearly (the centred slope; one-sided at a wall; wrapped where periodic)
//   and integrated over the overlap of each target cell. Second order for a smooth field,
//   and exactly conservative: after an integer refinement the new cells of an old cell
//   average to its value to round-off, and the integral over the box is kept.
// - interpolate_points: point values (the staggered velocities, on their faces and cell
//   centres), linearly between the two source points around each target point (wrapped where
//   periodic; extrapolated linearly from the two nearest beyond the outermost points, as
//   cell centres near a wall are): second order.
//
// Values are C order with x fastest, as the output files and checkpoints hold them. An axis
// the same on both grids is left as it is: the same grid gives the values to the bit.
#pragma once

#include <array>
#include <vector>

namespace bouss {

// One axis of a grid: its cells' faces (n + 1, increasing), whether it is periodic.
struct RemapAxis {
  std::vector<double> faces;
  bool periodic = false;
  int cells() const { return int(faces.size()) - 1; }
  std::vector<double> centres() const;
};

std::vector<double> remap_cells(const std::vector<double>& values, const std::array<RemapAxis, 3>& from,
                                const std::array<RemapAxis, 3>& to);

// Points per axis (increasing); `period` the axis's length where periodic (0: not), the
// points then one period's (a face field's face n, face 0 again, left out).
struct PointAxis {
  std::vector<double> points;
  double period = 0;
};

std::vector<double> interpolate_points(const std::vector<double>& values, const std::array<PointAxis, 3>& from,
                                       const std::array<std::vector<double>, 3>& to);

}  // namespace bouss
