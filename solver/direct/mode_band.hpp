// Where the direct solve's mode lines lie in the spectrum its tridiagonal solves read
// (solver/direct/fourier_solver.cu): line b (0 <= b < lines) is the horizontal mode (i, j)
// (i along the spectrum's x: 0 .. columns - 1; j along y), its nz levels `stride()` values
// apart from `base`. Two layouts:
//   flat: the modes m0 .. m0 + lines of a plane's modes m = i + columns j, mode fastest,
//     then z (one rank's whole spectrum; a slab transform's band: slab_transform.hpp);
//   columns: the mode columns m0 .. m0 + width of every row j, ordered (i, z, j) (a pencil
//     transform's band: pencil_transform.hpp, whose y transforms run along j).
#pragma once

#include <cstddef>

#include "grid/config.hpp"

namespace bouss {

struct ModeBand {
  int columns = 1;  // a plane's modes along i
  int m0 = 0;       // flat: the first mode; columns: the first column
  int lines = 0;    // mode lines in the band
  int width = 0;    // 0: flat; else the columns of the band (lines = width rows)
  int nz = 1;

  static ModeBand flat(int columns, int m0, int lines, int nz) { return {columns, m0, lines, 0, nz}; }
  static ModeBand column_range(int columns, int first, int width, int rows, int nz) {
    return {columns, first, width * rows, width, nz};
  }
  BOUSS_HD std::ptrdiff_t stride() const { return width == 0 ? lines : width; }
  // Line b's mode (i, j) and its first value.
  BOUSS_HD void line(int b, int& i, int& j, std::ptrdiff_t& base) const {
    if (width == 0) {
      i = (m0 + b) % columns, j = (m0 + b) / columns;
      base = b;
    } else {
      const int c = b % width, r = b / width;
      i = m0 + c, j = r;
      base = c + std::ptrdiff_t(width) * nz * r;
    }
  }
};

}  // namespace bouss
