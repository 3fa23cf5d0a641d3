#include "grid/decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bouss {

std::vector<int> Decomposition::cuts(int n, int parts) {
  if (parts < 1 || parts > n)
    throw std::invalid_argument("cannot cut " + std::to_string(n) + " cells into " + std::to_string(parts) + " parts");
  // Blocks of the largest power of two dividing n that leaves every part a block.
  int unit = 1;
  while (n % (2 * unit) == 0 && n / (2 * unit) >= parts) unit *= 2;
  const int blocks = n / unit, each = blocks / parts, more = blocks % parts;
  std::vector<int> c(parts + 1, 0);
  for (int p = 0; p < parts; ++p) c[p + 1] = c[p] + unit * (each + (p < more ? 1 : 0));
  return c;
}

std::array<int, 2> Decomposition::choose_dims(const std::array<int, 3>& global_n, int ranks) {
  std::array<int, 2> best{0, 0};
  double best_cost = std::numeric_limits<double>::infinity(), best_squareness = 0;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    const int py = ranks / px;
    if (px > global_n[0] || py > global_n[1]) continue;
    // What a rank's halo exchanges move: an x-z face (rows) per cut y side, a y-z face per cut
    // x side, whose cells lie a row apart: packing one reads a 32-byte sector for each
    // 8-byte value, x_face_weight times a row's cost (measured on two H200s: the multigrid
    // cut along y alone 4-7% faster than along x, docs/scaling.md).
    const double nx = double(global_n[0]) / px, ny = double(global_n[1]) / py;
    const double cost = (px > 1 ? 2 * ny * x_face_weight : 0) + (py > 1 ? 2 * nx : 0);
    // Ties go to the squarer block (its multigrid levels coarsen further within the rank),
    // then to more ranks along x.
    const double squareness = std::abs(nx - ny);
    if (cost < best_cost || (cost == best_cost && squareness <= best_squareness))
      best_cost = cost, best_squareness = squareness, best = {px, py};
  }
  if (best[0] == 0)
    throw std::invalid_argument("cannot cut a grid of " + std::to_string(global_n[0]) + "x" +
                                std::to_string(global_n[1]) + " columns over " + std::to_string(ranks) + " ranks");
  return best;
}

Decomposition Decomposition::single(const std::array<int, 3>& n, const std::array<bool, 3>& periodic) {
  return make(n, periodic, 1, 0, {1, 1});
}

Decomposition Decomposition::make(const std::array<int, 3>& global_n, const std::array<bool, 3>& periodic, int ranks,
                                  int rank, std::array<int, 2> dims) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw std::invalid_argument("decomposition: bad rank");
  if (dims[0] == 0 && dims[1] == 0) dims = choose_dims(global_n, ranks);
  if (dims[0] < 1 || dims[1] < 1 || dims[0] * dims[1] != ranks)
    throw std::invalid_argument("--decomposition " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                                ": expected a process grid of " + std::to_string(ranks) + " ranks");
  for (int a = 0; a < 2; ++a)
    if (dims[a] > global_n[a])
      throw std::invalid_argument("--decomposition " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                                  ": more ranks along " + "xy"[a] + " than the grid's " + std::to_string(global_n[a]) +
                                  " cells");
  Decomposition d;
  d.dims = dims;
  d.rank = rank;
  d.global_n = global_n;
  d.coords = {rank % dims[0], rank / dims[0]};
  d.n = global_n;
  for (int a = 0; a < 2; ++a) {
    const std::vector<int> c = cuts(global_n[a], dims[a]);
    d.offset[a] = c[d.coords[a]];
    d.n[a] = c[d.coords[a] + 1] - c[d.coords[a]];
  }
  auto rank_at = [&](int cx, int cy) { return cx + dims[0] * cy; };
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      int& nb = d.neighbour[2 * a + side];
      if (a == 2 || dims[a] == 1) {
        nb = periodic[a] ? rank : -1;
        continue;
      }
      int c = d.coords[a] + (side ? 1 : -1);
      if (c < 0 || c >= dims[a]) {
        if (!periodic[a]) {
          nb = -1;
          continue;
        }
        c = (c + dims[a]) % dims[a];
      }
      nb = a == 0 ? rank_at(c, d.coords[1]) : rank_at(d.coords[0], c);
    }
  return d;
}

bool Decomposition::coarsens_within_ranks(const std::array<int, 3>& halved, int min_block) const {
  for (int a = 0; a < 3; ++a) {
    if (!halved[a] || !split(a)) continue;
    const std::vector<int> c = cuts(global_n[a], dims[a]);
    for (int p = 0; p < dims[a]; ++p)
      if (c[p] % 2 || c[p + 1] % 2 || (c[p + 1] - c[p]) / 2 < min_block) return false;
  }
  return true;
}

int Decomposition::smallest_block(int axis) const {
  if (!split(axis)) return global_n[axis];
  const std::vector<int> c = cuts(global_n[axis], dims[axis]);
  int fewest = global_n[axis];
  for (int p = 0; p < dims[axis]; ++p) fewest = std::min(fewest, c[p + 1] - c[p]);
  return fewest;
}

Decomposition Decomposition::coarsened(const std::array<int, 3>& halved) const {
  Decomposition d = *this;
  for (int a = 0; a < 3; ++a) {
    if (!halved[a]) continue;
    if (global_n[a] % 2 || offset[a] % 2 || n[a] % 2)
      throw std::logic_error("Decomposition::coarsened: a block that does not halve within its rank");
    d.global_n[a] /= 2, d.offset[a] /= 2, d.n[a] /= 2;
  }
  // The cuts of the halved grid are the halved cuts (gather/scatter recompute them so).
  for (int a = 0; a < 2; ++a)
    if (d.split(a) && cuts(d.global_n[a], d.dims[a])[d.coords[a]] != d.offset[a])
      throw std::logic_error("Decomposition::coarsened: the halved cuts are not the coarse grid's");
  return d;
}

int Decomposition::levels_within_ranks(const std::vector<std::array<int, 3>>& shapes, int min_block, int most) const {
  Decomposition d = *this;
  int kept = 1;
  while (kept < most && kept < int(shapes.size())) {
    std::array<int, 3> halved{};
    for (int a = 0; a < 3; ++a) halved[a] = shapes[kept][a] != shapes[kept - 1][a];
    if (!d.coarsens_within_ranks(halved, min_block)) break;
    d = d.coarsened(halved);
    ++kept;
  }
  return kept;
}

std::array<int, 2> Decomposition::parse_dims(const std::string& text) {
  const auto x = text.find('x');
  try {
    if (x == std::string::npos) throw std::invalid_argument("");
    std::size_t used = 0;
    const int px = std::stoi(text.substr(0, x), &used);
    if (used != x) throw std::invalid_argument("");
    const std::string rest = text.substr(x + 1);
    const int py = std::stoi(rest, &used);
    if (used != rest.size() || px < 1 || py < 1) throw std::invalid_argument("");
    return {px, py};
  } catch (const std::exception&) {
    throw std::invalid_argument("--decomposition " + text + ": expected PXxPY, two positive integers (4x2)");
  }
}

}  // namespace bouss
