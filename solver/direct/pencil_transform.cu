// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/pencil_transform.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "solver/direct/slab_transform.hpp"
#include "solver/direct/transpose_steps.hpp"

namespace bouss {

template <class R>
bool PencilTransform<R>::takes(const Grid& part) {
  const auto& d = part.decomposition;
  return d && d->ranks() > 1 && d->dims[0] == 1 && part.global_n()[0] / 2 + 1 >= d->ranks();
}

template <class R>
LineShape PencilTransform<R>::x_lines(const Grid& part) {
  const std::array<int, 3>& nb = part.layout.n;
  LineShape s;
  s.kind = LineKind::real;
  s.n = nb[0];
  s.lines = std::max(1, nb[1] * nb[2]);
  s.real_side = {1, nb[0]};
  s.complex_side = {1, nb[0] / 2 + 1};
  return s;
}

template <class R>
int PencilTransform<R>::band_columns(const Grid& part) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks(), rank = part.decomposition->rank;
  const std::vector<int> k = SlabTransform<R>::even_cuts(n[0] / 2 + 1, ranks);
  return k[rank + 1] - k[rank];
}

template <class R>
LineShape PencilTransform<R>::y_lines(const Grid& part) {
  const std::array<int, 3> n = part.global_n();
  const int across = std::max(1, band_columns(part) * n[2]);  // a y line's points lie this far apart
  LineShape s;
  s.kind = LineKind::complex;
  s.n = n[1];
  s.lines = across;
  s.real_side = s.complex_side = {across, 1};
  return s;
}

template <class R>
PencilTransform<R>::PencilTransform(const Backend& backend, const Grid& part)
    : backend_(backend), part_(part), ranks_(backend.ranks().size()), rank_(backend.ranks().rank()) {
  if (!takes(part) || part.decomposition->ranks() != ranks_)
    throw std::logic_error("PencilTransform: expected a block of a grid cut along y alone over the backend's ranks");
  const std::array<int, 3> n = part.global_n();
  nx_ = n[0], ny_ = n[1], nz_ = n[2], rows_ = part.layout.n[1];
  columns_ = nx_ / 2 + 1;
  kcut_ = SlabTransform<R>::even_cuts(columns_, ranks_);
  k0_ = kcut_[rank_], width_ = kcut_[rank_ + 1] - k0_;
  const Decomposition& d = *part.decomposition;
  const std::vector<int> y = Decomposition::cuts(ny_, ranks_);
  for (int p = 0; p < ranks_; ++p) y0_.push_back(y[p]), ny_of_.push_back(y[p + 1] - y[p]);
  if (y0_[rank_] != d.offset[1] || ny_of_[rank_] != rows_)
    throw std::logic_error("PencilTransform: the blocks are not the decomposition's y cuts");
  // The lent staging arrays hold the block's values and their x spectrum.
  if (std::size_t(2) * columns_ * rows_ * nz_ > std::size_t(part.layout.size))
    throw std::logic_error("PencilTransform: the x spectrum does not fit in an array of the layout");
  x_fft_ = make_line_fft<R>(backend, x_lines(part));
  if (width_ > 0) y_fft_ = make_line_fft<R>(backend, y_lines(part));
}

template <class R>
void PencilTransform<R>::forward(const Field<R>& f, R* band, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int cx2 = 2 * columns_, w2 = 2 * width_, rows = rows_, nz = nz_;
  // 1. The block's x lines to their half spectra.
  pack_box(f, Box{{0, 0, 0}, part_.layout.n}, staging_a);
  x_fft_->forward(staging_a, staging_b);
  // 2. Each band's columns of every x line to the band's rank.
  std::vector<std::size_t> out(ranks_), in(ranks_);
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * 2 * std::size_t(kcut_[q + 1] - kcut_[q]) * rows * nz;
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * std::size_t(w2) * ny_of_[p] * nz;
  std::size_t total = 0;
  for (std::size_t c : out) total += c;
  R* send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += out[q] / sizeof(R), ++q) {
    const int wq2 = 2 * (kcut_[q + 1] - kcut_[q]);
    copy_strided(be, staging_b + 2 * kcut_[q], {cx2, std::ptrdiff_t(cx2) * rows}, send + at,
                 {wq2, std::ptrdiff_t(wq2) * rows}, {wq2, rows, nz});
  }
  transpose_all_to_all(be, out, in);
  // 3. Into the band, ordered (column, z, y), and its y lines transformed.
  const R* receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  std::size_t at = 0;
  for (int p = 0; p < ranks_; ++p) {
    copy_strided(be, receive + at, {w2, std::ptrdiff_t(w2) * ny_of_[p]}, band + std::ptrdiff_t(w2) * nz * y0_[p],
                 {std::ptrdiff_t(w2) * nz, w2}, {w2, ny_of_[p], nz});
    at += in[p] / sizeof(R);
  }
  if (y_fft_) y_fft_->forward(band, band);
}

template <class R>
void PencilTransform<R>::inverse(R* band, Field<R>& f, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int cx2 = 2 * columns_, w2 = 2 * width_, rows = rows_, nz = nz_;
  // 3'. The band's y lines back, and each block's rows of them to the block's rank.
  if (y_fft_) y_fft_->inverse(band, band);
  std::vector<std::size_t> out(ranks_), in(ranks_);
  for (int q = 0; q < ranks_; ++q) out[q] = sizeof(R) * std::size_t(w2) * ny_of_[q] * nz;
  for (int p = 0; p < ranks_; ++p) in[p] = sizeof(R) * 2 * std::size_t(kcut_[p + 1] - kcut_[p]) * rows * nz;
  std::size_t total = 0;
  for (std::size_t c : out) total += c;
  R* send = static_cast<R*>(be.buffer(Backend::Buffer::send, total));
  for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += out[q] / sizeof(R), ++q)
    copy_strided(be, static_cast<const R*>(band) + std::ptrdiff_t(w2) * nz * y0_[q], {std::ptrdiff_t(w2) * nz, w2},
                 send + at, {w2, std::ptrdiff_t(w2) * ny_of_[q]}, {w2, ny_of_[q], nz});
  transpose_all_to_all(be, out, in);
  // 2'. Every band's columns into this block's x spectra.
  const R* receive = static_cast<const R*>(be.buffer(Backend::Buffer::receive, 0));
  std::size_t at = 0;
  for (int p = 0; p < ranks_; ++p) {
    const int wp2 = 2 * (kcut_[p + 1] - kcut_[p]);
    copy_strided(be, receive + at, {wp2, std::ptrdiff_t(wp2) * rows}, staging_b + 2 * kcut_[p],
                 {cx2, std::ptrdiff_t(cx2) * rows}, {wp2, rows, nz});
    at += in[p] / sizeof(R);
  }
  // 1'. The x lines back into f's interior.
  x_fft_->inverse(staging_b, staging_a);
  unpack_box(f, Box{{0, 0, 0}, part_.layout.n}, staging_a);
}

template <class R>
double PencilTransform<R>::values_both_ways(const std::function<double(double, double)>&) const {
  const double block = double(part_.layout.cells()), half = 2.0 * columns_ * rows_ * nz_, band = double(band_values());
  // Each way: the block packed (read, write), its x transforms (the block and the half
  // spectra), the half spectra packed into the messages (read, write), the messages into the
  // band (read, write), the y transforms in place (the band read and written).
  return 2 * (2 * block + (block + half) + 2 * half + 2 * band + 2 * band);
}

template <class R>
double PencilTransform<R>::estimate_memory(const Grid& part, std::size_t value_bytes) {
  const std::array<int, 3> n = part.global_n();
  const double half = 2.0 * (n[0] / 2 + 1) * part.layout.n[1] * n[2], band = 2.0 * band_columns(part) * n[1] * n[2];
  // The sends and the receipts: the half spectra one way, the band the other.
  return double(value_bytes) * 2 * std::max(half, band);
}

template class PencilTransform<double>;
template class PencilTransform<float>;

}  // namespace bouss
