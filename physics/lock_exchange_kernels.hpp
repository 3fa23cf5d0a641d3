// Pointwise pieces of the lock exchange's diagnostics (physics/lock_exchange.hpp): where a
// row of cells along x holds the front of a gravity current, and the terms of the energy
// budget at one point. Launch sites (physics/lock_exchange.cu) own the loops; a test can
// call these on the host.
#pragma once

#include <cmath>

#include "grid/box.hpp"
#include "grid/config.hpp"
#include "physics/operators_kernels.hpp"

namespace bouss {

// One row of cells along x (a fixed j and k) in which a front is sought: the current runs
// toward +x (direction +1) or -x (-1) into fluid of temperature `ahead`; a cell has been
// reached by the current when |T - ahead| > threshold. Cell i's centre is x0 + i h, cells
// 0..n-1. Positions along the current's direction are "signed": direction * x.
struct FrontRow {
  double ahead = 0;      // the undisturbed temperature the current runs into
  double threshold = 0;  // fraction * |T_dense - T_light|
  int direction = 1;
  double x0 = 0, h = 1;
  int n = 1;
  // A stretched x: the centres of this block's cells (its axis table, ghosts included), cell
  // i of the whole grid at xc[i - offset]; null on a uniform x (x0 + i h).
  const double* xc = nullptr;
  int offset = 0;
  BOUSS_HD double centre(int i) const { return xc ? xc[i - offset] : x0 + i * h; }
};

// The signed position of the front as seen from cell i, whose temperature is T_here and whose
// neighbour one cell further along the current is T_next: -infinity (`none`) when the cell
// has not been reached; else, when the next cell has not been reached, the point between the
// two centres where |T - ahead| crosses the threshold, interpolated linearly; else (the next
// cell is reached too, or cell i is the last before the end wall) cell i's own centre.
// The front of the row is the largest value over its cells: any reached cell's value lies
// within a cell of itself, and the farthest reached cell's lies beyond every other's.
// A NaN temperature counts as not reached (the run's state check reports NaN elsewhere).
BOUSS_HD inline double front_crossing(const FrontRow& row, int i, double T_here, double T_next, double none) {
  const double here = std::fabs(T_here - row.ahead);
  if (!(here > row.threshold)) return none;
  const double s = row.direction * row.centre(i);
  const int next = i + row.direction;
  if (next < 0 || next >= row.n) return s;
  const double there = std::fabs(T_next - row.ahead);
  if (!(there <= row.threshold)) return s;  // reached as well (or NaN): that cell answers
  const double gap = row.xc ? row.direction * (row.centre(next) - row.centre(i)) : row.h;
  return s + gap * (here - row.threshold) / (here - there);
}

}  // namespace bouss
