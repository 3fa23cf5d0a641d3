#include "grid/gather.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "grid/device_messages.hpp"

namespace bouss {

namespace {

// Rank p's block of the decomposition that `part` belongs to.
Decomposition block_of(const Decomposition& d, int p) {
  return Decomposition::make(d.global_n, {false, false, false}, d.ranks(), p, d.dims);
}

// The supplied box of a block (d) in the whole grid's indices, and the block's own points
// per axis.
Box supplied_in_whole(const Decomposition& d, Stagger s) {
  Box b{{0, 0, 0}, {0, 0, 0}};
  for (int a = 0; a < 3; ++a) {
    const bool faces = staggered_along(s, a);
    const bool last = a > 1 || d.coords[a] == d.dims[a] - 1;
    b.lo[a] = d.offset[a];
    b.hi[a] = d.offset[a] + d.n[a] + (faces && last ? 1 : 0);
  }
  return b;
}

std::array<int, 3> points_of(const std::array<int, 3>& n, Stagger s) {
  return {n[0] + staggered_along(s, 0), n[1] + staggered_along(s, 1), n[2] + staggered_along(s, 2)};
}

}  // namespace

Box supplied_box_of_rank(const Decomposition& d, int p, Stagger s) { return supplied_in_whole(block_of(d, p), s); }

Box supplied_box_in_whole(const Grid& part, Stagger s) {
  return part.decomposition ? supplied_in_whole(*part.decomposition, s) : part.layout.interior(s);
}

Box supplied_box(const Grid& part, Stagger s) {
  if (!part.decomposition) return part.layout.interior(s);
  Box b = supplied_in_whole(*part.decomposition, s);
  for (int a = 0; a < 3; ++a) b.lo[a] -= part.decomposition->offset[a], b.hi[a] -= part.decomposition->offset[a];
  return b;
}

std::vector<double> supplied_values(const std::vector<double>& values, Stagger s, const Grid& part) {
  const std::array<int, 3> mine = points_of(part.layout.n, s);
  if (values.size() != std::size_t(mine[0]) * mine[1] * mine[2])
    throw std::invalid_argument("supplied_values: the values are not the block's interior");
  return part_of_box(values, Box{{0, 0, 0}, mine}, supplied_box(part, s));
}

std::vector<double> gather_interior(const std::vector<double>& all, Stagger s, const Grid& part,
                                    const Communicator& ranks, int root) {
  if (!part.decomposition || ranks.alone()) return all;
  const Decomposition& d = *part.decomposition;
  const std::vector<double> send = supplied_values(all, s, part);
  std::vector<char> received;
  ranks.gatherv(send.data(), send.size() * sizeof(double), &received, root);
  if (ranks.rank() != root) return {};
  const std::array<int, 3> whole = points_of(d.global_n, s);
  std::vector<double> out(std::size_t(whole[0]) * whole[1] * whole[2]);
  const double* v = reinterpret_cast<const double*>(received.data());
  for (int p = 0; p < ranks.size(); ++p) {
    const Box b = supplied_in_whole(block_of(d, p), s);
    for (int k = b.lo[2]; k < b.hi[2]; ++k)
      for (int j = b.lo[1]; j < b.hi[1]; ++j)
        for (int i = b.lo[0]; i < b.hi[0]; ++i) out[i + std::size_t(whole[0]) * (j + std::size_t(whole[1]) * k)] = *v++;
  }
  return out;
}

void place_pieces(const char* pieces, std::size_t elem, const Box& box, const Decomposition& d, int ranks, Stagger s,
                  char* out) {
  const std::size_t ex = std::size_t(box.extent(0)), ey = std::size_t(box.extent(1));
  const char* in = pieces;
  for (int p = 0; p < ranks; ++p) {
    const Box b = intersect(box, supplied_box_of_rank(d, p, s));
    if (b.empty()) continue;
    const std::size_t row = elem * std::size_t(b.extent(0));
    for (int k = b.lo[2]; k < b.hi[2]; ++k)
      for (int j = b.lo[1]; j < b.hi[1]; ++j, in += row)
        std::memcpy(out + elem * ((std::size_t(k - box.lo[2]) * ey + std::size_t(j - box.lo[1])) * ex +
                                  std::size_t(b.lo[0] - box.lo[0])),
                    in, row);
  }
}

std::vector<double> part_of_box(const std::vector<double>& values, const Box& box, const Box& part) {
  if (values.size() != std::size_t(box.cells())) throw std::invalid_argument("part_of_box: not the box's values");
  const std::size_t ex = std::size_t(box.extent(0)), ey = std::size_t(box.extent(1));
  const std::size_t row = std::size_t(part.extent(0));
  std::vector<double> v(std::size_t(part.cells()));
  double* out = v.data();
  for (int k = part.lo[2]; k < part.hi[2]; ++k)
    for (int j = part.lo[1]; j < part.hi[1]; ++j, out += row)
      std::memcpy(out, values.data() + (std::size_t(k - box.lo[2]) * ey + std::size_t(j - box.lo[1])) * ex +
                           std::size_t(part.lo[0] - box.lo[0]),
                  row * sizeof(double));
  return v;
}

Box block_box(const Grid& part, Stagger s) {
  const std::array<int, 3> n = points_of(part.layout.n, s), offset = part.offset();
  Box b;
  for (int a = 0; a < 3; ++a) b.lo[a] = offset[a], b.hi[a] = offset[a] + n[a];  // the last block's face n: the whole's face N
  return b;
}

std::vector<double> block_of_whole(const std::vector<double>& whole, Stagger s, const Grid& part) {
  if (!part.decomposition) return whole;
  const std::array<int, 3> points = points_of(part.decomposition->global_n, s);
  if (whole.size() != std::size_t(points[0]) * points[1] * points[2])
    throw std::invalid_argument("block_of_whole: the values are not the whole grid's interior");
  const Box b = block_box(part, s);
  return part_of_box(whole, Box{{0, 0, 0}, points}, b);
}

namespace {

// alltoallv's counts of a gather onto root (or a scatter from it): on root, the bytes of
// each rank's box; elsewhere, none.
template <class S, class BoxOf>
std::vector<std::size_t> bytes_on_root(const Communicator& ranks, int root, BoxOf box_of) {
  std::vector<std::size_t> bytes(std::size_t(ranks.size()), 0);
  if (ranks.rank() == root)
    for (int p = 0; p < ranks.size(); ++p) bytes[std::size_t(p)] = sizeof(S) * std::size_t(box_of(p).cells());
  return bytes;
}

}  // namespace

// Both go through parallel/device_messages (NCCL from device memory where the run has it,
// else MPI, through host buffers for a GPU): no host copy of the field on the NCCL path.
template <class S>
void gather_field(const Field<S>& f, const Grid& part, Field<S>* whole, int root) {
  const Backend& be = f.backend();
  const Communicator& ranks = be.ranks();
  const Decomposition& d = *part.decomposition;
  const Stagger s = f.stagger();
  const bool on_root = ranks.rank() == root;
  const Box mine = supplied_box(part, s);
  const auto whole_box = [&](int p) { return supplied_in_whole(block_of(d, p), s); };
  const std::vector<std::size_t> none(std::size_t(ranks.size()), 0);
  std::vector<std::size_t> sent = none;
  sent[std::size_t(root)] = sizeof(S) * std::size_t(mine.cells());
  const std::vector<std::size_t> received = bytes_on_root<S>(ranks, root, whole_box);
  std::size_t total = 0;
  for (std::size_t r : received) total += r;
  S* packed = static_cast<S*>(be.buffer(Backend::Buffer::send, sent[std::size_t(root)]));
  S* pieces = static_cast<S*>(be.buffer(Backend::Buffer::receive, std::max<std::size_t>(total, 1)));
  pack_box(f, mine, packed);
  alltoallv_on(be, packed, sent, pieces, received);
  if (!on_root) return;
  for (int p = 0; p < ranks.size(); ++p) {
    const Box b = whole_box(p);
    unpack_box(*whole, b, static_cast<const S*>(pieces));
    pieces += b.cells();
  }
}

template <class S>
void scatter_field(const Field<S>* whole, Field<S>& f, const Grid& part, int root) {
  const Backend& be = f.backend();
  const Communicator& ranks = be.ranks();
  const Decomposition& d = *part.decomposition;
  const Stagger s = f.stagger();
  const bool on_root = ranks.rank() == root;
  const Box interior = f.layout().interior(s);
  // A block's interior in the whole grid's indices.
  const auto block_box = [&](int p) {
    const Decomposition b = block_of(d, p);
    const std::array<int, 3> n = points_of(b.n, s);
    return Box{{b.offset[0], b.offset[1], 0}, {b.offset[0] + n[0], b.offset[1] + n[1], n[2]}};
  };
  const std::vector<std::size_t> none(std::size_t(ranks.size()), 0);
  const std::vector<std::size_t> sent = bytes_on_root<S>(ranks, root, block_box);
  std::vector<std::size_t> received = none;
  received[std::size_t(root)] = sizeof(S) * std::size_t(interior.cells());
  std::size_t total = 0;
  for (std::size_t b : sent) total += b;
  S* packed = static_cast<S*>(be.buffer(Backend::Buffer::send, std::max<std::size_t>(total, 1)));
  S* mine = static_cast<S*>(be.buffer(Backend::Buffer::receive, received[std::size_t(root)]));
  if (on_root) {
    S* at = packed;
    for (int p = 0; p < ranks.size(); ++p) {
      const Box b = block_box(p);
      pack_box(*whole, b, at);
      at += b.cells();
    }
  }
  alltoallv_on(be, packed, sent, mine, received);
  unpack_box(f, interior, static_cast<const S*>(mine));
}

template void gather_field<double>(const Field<double>&, const Grid&, Field<double>*, int);
template void gather_field<float>(const Field<float>&, const Grid&, Field<float>*, int);
template void scatter_field<double>(const Field<double>*, Field<double>&, const Grid&, int);
template void scatter_field<float>(const Field<float>*, Field<float>&, const Grid&, int);


}  // namespace bouss
