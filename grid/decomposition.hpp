// Which part of the global grid a rank holds: pencils of whole z columns cut in x and y
// (paper 001: the vertical line solves stay within a rank), over a process grid of
// dims[0] x dims[1] ranks, rank = cx + dims[0] * cy. Cuts fall on multiples of the largest
// power of two that leaves every rank at least one block, so the multigrid's first levels
// coarsen within each rank; a rank count that does not divide the blocks evenly gives the
// first ranks of an axis one block more (3 ranks over 96 cells: 32 each; over 64: 32, 16, 16).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace bouss {

// The multigrids keep a level cut over the ranks while every rank's block keeps at least this
// many cells along each cut axis (pressure.agglomerate_below's default; the coarser levels are
// gathered onto rank 0). The scaling model's choice (docs/scaling.md): below it an exchange
// per colour costs more in latency than the level's work, and a gathered level of blocks this
// narrow is small.
constexpr int default_agglomerate_below = 32;

struct Decomposition {
  std::array<int, 2> dims{1, 1};       // ranks along x and y
  std::array<int, 2> coords{0, 0};     // this rank's place in the process grid
  std::array<int, 3> global_n{0, 0, 0};
  std::array<int, 3> offset{0, 0, 0};  // global index of this rank's cell (0, 0, 0)
  std::array<int, 3> n{0, 0, 0};       // this rank's cells
  // The rank across each face (x_lo, x_hi, y_lo, y_hi, z_lo, z_hi), or -1 at a wall of the
  // domain; across a periodic axis that is not cut, this rank itself.
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};
  int rank = 0;

  int ranks() const { return dims[0] * dims[1]; }
  // Whether the axis is cut between ranks (its faces then exchange halos).
  bool split(int axis) const { return axis < 2 && dims[axis] > 1; }
  // Whether face 2 * axis + side borders another rank's cells.
  bool exchanges(int face) const { return split(face / 2) && neighbour[face] >= 0; }
  // The rank across the edge where x face 0 + sx and y face 2 + sy meet (sx, sy: 0 low, 1
  // high), or -1 where either face is not exchanged: the diagonal neighbour whose corner
  // cells border this rank's corner.
  int diagonal(int sx, int sy) const {
    if (!exchanges(sx) || !exchanges(2 + sy)) return -1;
    const int cx = (coords[0] + (sx ? 1 : -1) + dims[0]) % dims[0];
    const int cy = (coords[1] + (sy ? 1 : -1) + dims[1]) % dims[1];
    return cx + dims[0] * cy;
  }
  // "4x2"
  std::string describe() const { return std::to_string(dims[0]) + "x" + std::to_string(dims[1]); }

  // The cost of a halo cell of a y-z face (a cut along x) against one of an x-z face.
  static constexpr double x_face_weight = 4;
  // The whole grid on one rank.
  static Decomposition single(const std::array<int, 3>& n, const std::array<bool, 3>& periodic);
  // This rank's part of a grid of global_n cells over `ranks` ranks: dims as given, or,
  // with {0, 0}, chosen to exchange the fewest halo cells per rank, a cell of a face cut
  // along x counting x_face_weight, ties to the squarer block and then to more ranks along x
  // (choose_dims). Throws
  // std::invalid_argument with a sentence when the grid cannot be cut so.
  static Decomposition make(const std::array<int, 3>& global_n, const std::array<bool, 3>& periodic, int ranks,
                            int rank, std::array<int, 2> dims = {0, 0});
  static std::array<int, 2> choose_dims(const std::array<int, 3>& global_n, int ranks);
  // The first cell of each of `parts` pieces of n cells, and n at the end (parts + 1 values).
  static std::vector<int> cuts(int n, int parts);
  // Whether the blocks of every rank halve within their rank along the axes marked in
  // `halved` (a multigrid level coarsened from this one): every cut along a cut axis falls on
  // an even cell, and every coarse block keeps at least min_block cells along it. The same
  // answer on every rank (it reads the cuts of all of them).
  bool coarsens_within_ranks(const std::array<int, 3>& halved, int min_block) const;
  // This rank's block of that coarser grid (coarsens_within_ranks must hold): offsets, cell
  // counts and the whole grid halved along the halved axes, the neighbours unchanged.
  Decomposition coarsened(const std::array<int, 3>& halved) const;
  // How many of a multigrid's levels (`shapes`: the whole grid's, finest first, shapes[0]
  // this decomposition's global_n) stay cut over the ranks: the finest, then each next one
  // while every block halves within its rank into blocks of at least min_block cells along
  // each cut axis, at most `most` of them. The same answer on every rank.
  int levels_within_ranks(const std::vector<std::array<int, 3>>& shapes, int min_block, int most) const;
  // The fewest cells any rank's block has along `axis` (the same on every rank).
  int smallest_block(int axis) const;
  // Parses "4x2" (the --decomposition option); throws std::invalid_argument.
  static std::array<int, 2> parse_dims(const std::string& text);
};

}  // namespace bouss
