// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/slab_transform.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "solver/direct/transpose_steps.hpp"

namespace bouss {

template <class R>
SlabTransform<R>::SlabTransform(const Backend& backend, const Grid& part, MakeR2R make_r2r)
    : backend_(backend), part_(part), ranks_(backend.ranks().size()), rank_(backend.ranks().rank()) {
  if (!part.decomposition || part.decomposition->ranks() != ranks_)
    throw std::logic_error("SlabTransform: expected a block of a grid cut over the backend's ranks");
  const std::array<int, 3> n = part.global_n();
  nx_ = n[0], ny_ = n[1], nz_ = n[2];
  real_ = bool(make_r2r);
  columns_ = real_ ? nx_ : nx_ / 2 + 1;
  plane_modes_ = columns_ * ny_;
  zcut_ = even_cuts(nz_, ranks_);
  mcut_ = even_cuts(plane_modes_, ranks_);
  levels_ = zcut_[rank_ + 1] - zcut_[rank_];
  m0_ = mcut_[rank_], modes_ = mcut_[rank_ + 1] - mcut_[rank_];
  const Decomposition& d = *part.decomposition;
  for (int p = 0; p < ranks_; ++p) {
    const Decomposition b = Decomposition::make(d.global_n, {false, false, false}, ranks_, p, d.dims);
    blocks_.push_back(Box{{b.offset[0], b.offset[1], 0}, {b.offset[0] + b.n[0], b.offset[1] + b.n[1], nz_}});
  }
  if (levels_ == 0) return;  // no slab: this rank only passes its block on and solves its band
  const Layout slab = slab_layout(part);
  slab_ = Field<R>(backend, slab, Stagger::centre, "fft slab");
  fill(slab_, 0);
  slab_spectrum_ = static_cast<R*>(backend.allocate(std::size_t(values_per_mode()) * plane_modes_ * levels_ * sizeof(R)));
  if (real_) r2r_ = make_r2r(slab);
  else fft_ = make_plane_fft<R>(backend, slab);
}

template <class R>
SlabTransform<R>::~SlabTransform() {
  if (slab_spectrum_) backend_.deallocate(slab_spectrum_);
}

template <class R>
void SlabTransform<R>::forward(const Field<R>& f, R* band, R*, R*) {
  const Backend& be = backend_;
  const std::array<int, 3>& nb = part_.layout.n;
  const int vm = values_per_mode(), levels = levels_;
  // 1. The block's levels of each slab to that slab's rank.
  std::vector<std::size_t> out(ranks_), in(ranks_);
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * std::size_t(nb[0]) * nb[1] * (zcut_[q + 1] - zcut_[q]);
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * std::size_t(blocks_[p].extent(0)) * blocks_[p].extent(1) * levels;
  std::size_t total = 0;
  for (std::size_t c : out) total += c;
  R* send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += out[q] / sizeof(R), ++q)
    pack_box(f, Box{{0, 0, zcut_[q]}, {nb[0], nb[1], zcut_[q + 1]}}, send + at);
  transpose_all_to_all(be, out, in);
  const R* receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  std::size_t at = 0;
  for (int p = 0; p < ranks_ && levels > 0; ++p) {
    const Box& b = blocks_[p];
    unpack_box(slab_, Box{{b.lo[0], b.lo[1], 0}, {b.hi[0], b.hi[1], levels}}, receive + at);
    at += in[p] / sizeof(R);
  }
  // 2. The slab's planes transformed.
  if (levels > 0) {
    R* interior = slab_.data() + slab_.layout().origin;
    if (r2r_) r2r_->forward(interior, slab_spectrum_);
    else fft_->forward(interior, reinterpret_cast<Complex<R>*>(slab_spectrum_));
  }
  // 3. Each band's modes of the slab's planes to the band's rank.
  const int row = vm * plane_modes_, mine = vm * modes_;
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * std::size_t(vm) * (mcut_[q + 1] - mcut_[q]) * levels;
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * std::size_t(mine) * (zcut_[p + 1] - zcut_[p]);
  total = 0;
  for (std::size_t c : out) total += c;
  send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at2 = 0; q < std::size_t(ranks_); at2 += out[q] / sizeof(R), ++q) {
    const int width = vm * (mcut_[q + 1] - mcut_[q]);
    copy_strided(be, static_cast<const R*>(slab_spectrum_) + vm * mcut_[q], {row, row}, send + at2, {width, width},
                 {width, 1, levels});
  }
  transpose_all_to_all(be, out, in);
  receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  at = 0;
  for (int p = 0; p < ranks_; ++p) {
    const int lp = zcut_[p + 1] - zcut_[p];
    copy_strided(be, receive + at, {mine, mine}, band + std::ptrdiff_t(mine) * zcut_[p], {mine, mine}, {mine, 1, lp});
    at += in[p] / sizeof(R);
  }
}

template <class R>
void SlabTransform<R>::inverse(R* band, Field<R>& f, R*, R*) {
  const Backend& be = backend_;
  const std::array<int, 3>& nb = part_.layout.n;
  const int vm = values_per_mode(), levels = levels_, row = vm * plane_modes_, mine = vm * modes_;
  // 3'. The band's levels of each slab back to the slab's rank.
  std::vector<std::size_t> out(ranks_), in(ranks_);
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * std::size_t(mine) * (zcut_[q + 1] - zcut_[q]);
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * std::size_t(vm) * (mcut_[p + 1] - mcut_[p]) * levels;
  std::size_t total = 0;
  for (std::size_t c : out) total += c;
  R* send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += out[q] / sizeof(R), ++q) {
    const int lq = zcut_[q + 1] - zcut_[q];
    copy_strided(be, static_cast<const R*>(band) + std::ptrdiff_t(mine) * zcut_[q], {mine, mine}, send + at, {mine, mine},
                 {mine, 1, lq});
  }
  transpose_all_to_all(be, out, in);
  const R* receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  std::size_t at = 0;
  for (int p = 0; p < ranks_ && levels > 0; ++p) {
    const int width = vm * (mcut_[p + 1] - mcut_[p]);
    copy_strided(be, receive + at, {width, width}, slab_spectrum_ + vm * mcut_[p], {row, row}, {width, 1, levels});
    at += in[p] / sizeof(R);
  }
  // 2'. The slab's planes back.
  if (levels > 0) {
    R* interior = slab_.data() + slab_.layout().origin;
    if (r2r_) r2r_->inverse(slab_spectrum_, interior);
    else fft_->inverse(reinterpret_cast<Complex<R>*>(slab_spectrum_), interior);
  }
  // 1'. Each rank's block of the slab back to it.
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * std::size_t(blocks_[q].extent(0)) * blocks_[q].extent(1) * levels;
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * std::size_t(nb[0]) * nb[1] * (zcut_[p + 1] - zcut_[p]);
  total = 0;
  for (std::size_t c : out) total += c;
  send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at2 = 0; q < std::size_t(ranks_) && levels > 0; at2 += out[q] / sizeof(R), ++q) {
    const Box& bq = blocks_[q];
    pack_box(slab_, Box{{bq.lo[0], bq.lo[1], 0}, {bq.hi[0], bq.hi[1], levels}}, send + at2);
  }
  transpose_all_to_all(be, out, in);
  receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  at = 0;
  for (int p = 0; p < ranks_; ++p) {
    unpack_box(f, Box{{0, 0, zcut_[p]}, {nb[0], nb[1], zcut_[p + 1]}}, receive + at);
    at += in[p] / sizeof(R);
  }
}

template <class R>
double SlabTransform<R>::transpose_bytes() const {
  const double block = double(part_.layout.cells()), slab = double(nx_) * ny_ * levels_;
  const double band = double(band_values()), slab_spectrum = double(values_per_mode()) * plane_modes_ * levels_;
  // block packed (read, write), unpacked into the slab (read, write), the spectrum's modes
  // packed and unpacked into the band
  return (2 * block + 2 * slab + 2 * slab_spectrum + 2 * band) * sizeof(R);
}

template <class R>
double SlabTransform<R>::values_both_ways(const std::function<double(double, double)>& plane_transforms) const {
  const double planes = double(nx_) * ny_ * levels_, half = 2.0 * (nx_ / 2 + 1) * ny_ * levels_;
  return 2 * transpose_bytes() / sizeof(R) + plane_transforms(planes, half);
}

template <class R>
Layout SlabTransform<R>::slab_layout(const Grid& part) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition ? part.decomposition->ranks() : 1, rank = part.decomposition ? part.decomposition->rank : 0;
  const std::vector<int> z = even_cuts(n[2], ranks);
  return Layout::make({n[0], n[1], z[rank + 1] - z[rank]}, part.layout.ghost, part.layout.elem_bytes);
}

template <class R>
int SlabTransform<R>::band_modes(const Grid& part, int columns) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition ? part.decomposition->ranks() : 1, rank = part.decomposition ? part.decomposition->rank : 0;
  const std::vector<int> m = even_cuts(columns * n[1], ranks);
  return m[rank + 1] - m[rank];
}

template <class R>
double SlabTransform<R>::estimate_memory(const Grid& part, std::size_t value_bytes, bool real_spectrum) {
  const std::array<int, 3> n = part.global_n();
  const Layout slab = slab_layout(part);
  const int levels = slab.n[2], vm = real_spectrum ? 1 : 2, columns = real_spectrum ? n[0] : n[0] / 2 + 1;
  const double slab_cells = double(n[0]) * n[1] * levels, slab_spectrum = double(vm) * columns * n[1] * levels;
  const double band = double(vm) * band_modes(part, columns) * n[2], block = double(part.layout.cells());
  // The messages: the larger of each transpose's sends, and of its receipts.
  const double messages = std::max(block, slab_spectrum) + std::max(slab_cells, band);
  return double(value_bytes) * ((levels > 0 ? double(slab.size) : 0.0) + slab_spectrum + messages);
}

template class SlabTransform<double>;
template class SlabTransform<float>;

}  // namespace bouss
