// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/pencil_transform.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "solver/direct/transpose_steps.hpp"

namespace bouss {

template <class R>
bool PencilTransform<R>::fits(const std::array<int, 3>& n, int ranks) {
  return ranks > 1 && ranks <= n[1] && n[0] / 2 + 1 >= ranks;
}

template <class R>
bool PencilTransform<R>::takes(const Grid& part) {
  const auto& d = part.decomposition;
  return d && d->dims[0] == 1 && fits(part.global_n(), d->ranks());
}

template <class R>
int PencilTransform<R>::default_pieces(const Grid& part, std::size_t value_bytes) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks();
  // what the x side sends each rank in one all-to-all: a band's columns of the block's rows
  const double per_rank = 2.0 * double(n[0] / 2 + 1) / ranks * part.layout.n[1] * n[2] * value_bytes;
  const int by_size = int(per_rank / double(4 << 20));
  return std::max(1, std::min({4, n[2], by_size}));
}

template <class R>
std::vector<int> PencilTransform<R>::piece_cuts(const Grid& part, int pieces) {
  const int nz = part.layout.n[2];
  return even_cuts(nz, std::max(1, std::min(pieces, nz)));
}

template <class R>
LineShape PencilTransform<R>::x_lines(const Grid& part, int levels) {
  const std::array<int, 3>& nb = part.layout.n;
  LineShape s;
  s.kind = LineKind::real;
  s.n = nb[0];
  s.lines = std::max(1, nb[1] * levels);
  s.real_side = {1, nb[0]};
  s.complex_side = {1, nb[0] / 2 + 1};
  return s;
}

template <class R>
std::vector<LineShape> PencilTransform<R>::line_shapes(const Grid& part, int pieces) {
  std::vector<LineShape> shapes;
  std::vector<int> sizes;
  const std::vector<int> z = piece_cuts(part, pieces);
  for (std::size_t c = 0; c + 1 < z.size(); ++c)
    if (std::find(sizes.begin(), sizes.end(), z[c + 1] - z[c]) == sizes.end()) sizes.push_back(z[c + 1] - z[c]);
  for (int levels : sizes) shapes.push_back(x_lines(part, levels));
  if (band_columns(part) > 0) shapes.push_back(y_lines(part));
  return shapes;
}

template <class R>
int PencilTransform<R>::band_columns(const Grid& part) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks(), rank = part.decomposition->rank;
  const std::vector<int> k = even_cuts(n[0] / 2 + 1, ranks);
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
PencilTransform<R>::PencilTransform(const Backend& backend, const Grid& part, int pieces)
    : backend_(backend), part_(part), ranks_(backend.ranks().size()), rank_(backend.ranks().rank()) {
  if (!takes(part) || part.decomposition->ranks() != ranks_)
    throw std::logic_error("PencilTransform: expected a block of a grid cut along y alone over the backend's ranks");
  const std::array<int, 3> n = part.global_n();
  nx_ = n[0], ny_ = n[1], nz_ = n[2], rows_ = part.layout.n[1];
  columns_ = nx_ / 2 + 1;
  kcut_ = even_cuts(columns_, ranks_);
  k0_ = kcut_[rank_], width_ = kcut_[rank_ + 1] - k0_;
  const Decomposition& d = *part.decomposition;
  const std::vector<int> y = Decomposition::cuts(ny_, ranks_);
  for (int p = 0; p < ranks_; ++p) y0_.push_back(y[p]), ny_of_.push_back(y[p + 1] - y[p]);
  if (y0_[rank_] != d.offset[1] || ny_of_[rank_] != rows_)
    throw std::logic_error("PencilTransform: the blocks are not the decomposition's y cuts");
  // The lent staging arrays hold the block's values and their x spectrum.
  if (std::size_t(2) * columns_ * rows_ * nz_ > std::size_t(part.layout.size))
    throw std::logic_error("PencilTransform: the x spectrum does not fit in an array of the layout");
  zcut_ = piece_cuts(part, pieces);
  const int count = int(zcut_.size()) - 1;
  for (int c = 0; c < count; ++c) x_fft(zcut_[c + 1] - zcut_[c]);
  if (width_ > 0) y_fft_ = make_line_fft<R>(backend, y_lines(part));
  packed_ = std::make_unique<StreamEvent[]>(std::size_t(count));
  arrived_ = std::make_unique<StreamEvent[]>(std::size_t(count));
  forward_ = message_pieces(true);
  inverse_ = message_pieces(false);
}

template <class R>
LineFft<R>& PencilTransform<R>::x_fft(int levels) {
  for (auto& [l, fft] : x_fft_)
    if (l == levels) return *fft;
  x_fft_.emplace_back(levels, make_line_fft<R>(backend_, x_lines(part_, levels)));
  return *x_fft_.back().second;
}

template <class R>
typename PencilTransform<R>::Pieces PencilTransform<R>::message_pieces(bool forward) const {
  Pieces pieces;
  for (std::size_t c = 0; c + 1 < zcut_.size(); ++c) {
    Piece m{zcut_[c], zcut_[c + 1], std::vector<std::size_t>(ranks_), std::vector<std::size_t>(ranks_),
            pieces.sends / sizeof(R), pieces.receipts / sizeof(R)};
    const std::size_t levels = std::size_t(m.z1 - m.z0);
    // this block's x spectra's columns of each band, and this band's columns of each block's rows
    for (int p = 0; p < ranks_; ++p) {
      const std::size_t columns = sizeof(R) * 2 * std::size_t(kcut_[p + 1] - kcut_[p]) * rows_ * levels;
      const std::size_t band = sizeof(R) * 2 * std::size_t(width_) * ny_of_[p] * levels;
      m.out[p] = forward ? columns : band;
      m.in[p] = forward ? band : columns;
      pieces.sends += m.out[p], pieces.receipts += m.in[p];
    }
    pieces.each.push_back(std::move(m));
  }
  return pieces;
}

template <class R>
void PencilTransform<R>::forward(const Field<R>& f, R* band, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int nx = nx_, cx2 = 2 * columns_, w2 = 2 * width_, rows = rows_, nz = nz_;
  const std::vector<Piece>& pieces = forward_.each;
  R* const send = static_cast<R*>(be.buffer(Backend::Buffer::send, forward_.sends));
  R* const receive = static_cast<R*>(be.buffer(Backend::Buffer::receive, forward_.receipts));
  void* const messages = be.message_stream();
  // 1. Each piece's x lines to their half spectra, each band's columns of them packed and
  // sent (on the message stream) while the next piece is transformed.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    const int z0 = m.z0, levels = m.z1 - m.z0;
    R* const real = staging_a + std::ptrdiff_t(nx) * rows * z0;
    R* const half = staging_b + std::ptrdiff_t(cx2) * rows * z0;
    pack_box(f, Box{{0, 0, z0}, {nx, rows, m.z1}}, real);
    x_fft(levels).forward(real, half);
    R* const out = send + m.send_at;
    for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += m.out[q] / sizeof(R), ++q) {
      const int wq2 = 2 * (kcut_[q + 1] - kcut_[q]);
      copy_strided(be, half + 2 * kcut_[q], {cx2, std::ptrdiff_t(cx2) * rows}, out + at,
                   {wq2, std::ptrdiff_t(wq2) * rows}, {wq2, rows, levels});
    }
    packed_[c].record_on(be, be.stream());
    packed_[c].make_wait(be, messages);
    transpose_all_to_all(be, out, m.out, receive + m.receive_at, m.in, messages);
    arrived_[c].record_on(be, messages);
  }
  // 2. Each piece's columns into the band, ordered (column, z, y); then its y lines.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    arrived_[c].make_wait(be, be.stream());
    const R* in = receive + m.receive_at;
    const int levels = m.z1 - m.z0;
    for (int p = 0; p < ranks_; ++p) {
      copy_strided(be, in, {w2, std::ptrdiff_t(w2) * ny_of_[p]}, band + std::ptrdiff_t(w2) * (m.z0 + std::ptrdiff_t(nz) * y0_[p]),
                   {std::ptrdiff_t(w2) * nz, w2}, {w2, ny_of_[p], levels});
      in += m.in[p] / sizeof(R);
    }
  }
  if (y_fft_) y_fft_->forward(band, band);
}

template <class R>
void PencilTransform<R>::inverse(R* band, Field<R>& f, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int nx = nx_, cx2 = 2 * columns_, w2 = 2 * width_, rows = rows_, nz = nz_;
  // 2'. The band's y lines back; each piece's rows of every block packed and sent.
  if (y_fft_) y_fft_->inverse(band, band);
  const std::vector<Piece>& pieces = inverse_.each;
  R* const send = static_cast<R*>(be.buffer(Backend::Buffer::send, inverse_.sends));
  R* const receive = static_cast<R*>(be.buffer(Backend::Buffer::receive, inverse_.receipts));
  void* const messages = be.message_stream();
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    const int levels = m.z1 - m.z0;
    R* const out = send + m.send_at;
    for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += m.out[q] / sizeof(R), ++q)
      copy_strided(be, static_cast<const R*>(band) + std::ptrdiff_t(w2) * (m.z0 + std::ptrdiff_t(nz) * y0_[q]),
                   {std::ptrdiff_t(w2) * nz, w2}, out + at, {w2, std::ptrdiff_t(w2) * ny_of_[q]}, {w2, ny_of_[q], levels});
    packed_[c].record_on(be, be.stream());
    packed_[c].make_wait(be, messages);
    transpose_all_to_all(be, out, m.out, receive + m.receive_at, m.in, messages);
    arrived_[c].record_on(be, messages);
  }
  // 1'. Each piece's columns into this block's x spectra, its x lines back into f's interior.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    const int z0 = m.z0, levels = m.z1 - m.z0;
    R* const real = staging_a + std::ptrdiff_t(nx) * rows * z0;
    R* const half = staging_b + std::ptrdiff_t(cx2) * rows * z0;
    arrived_[c].make_wait(be, be.stream());
    const R* in = receive + m.receive_at;
    for (int p = 0; p < ranks_; ++p) {
      const int wp2 = 2 * (kcut_[p + 1] - kcut_[p]);
      copy_strided(be, in, {wp2, std::ptrdiff_t(wp2) * rows}, half + 2 * kcut_[p], {cx2, std::ptrdiff_t(cx2) * rows},
                   {wp2, rows, levels});
      in += m.in[p] / sizeof(R);
    }
    x_fft(levels).inverse(half, real);
    unpack_box(f, Box{{0, 0, z0}, {nx, rows, m.z1}}, real);
  }
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
