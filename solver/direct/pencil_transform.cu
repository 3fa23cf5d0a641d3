// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/pencil_transform.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "solver/direct/cosine_kernels.hpp"
#include "solver/direct/transpose_steps.hpp"

namespace bouss {

namespace {

// Piece levels z0 .. z0 + levels of the block's x lines from the field into dense lines (nx
// values a line, rows, then levels), in Makhoul's order along x where `reorder` says; and back.
BOUSS_HD inline std::ptrdiff_t x_line_value(int i, int j, int l, int nx, int rows) {
  return i + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(rows) * l);
}
template <class R>
void x_lines_from_field(const Field<R>& f, int z0, int levels, R* lines, bool reorder) {
  const View<const R> v = f.cview();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const int nx = f.layout().n[0], rows = f.layout().n[1];
  const R* const field = v.origin;
  for_each(f.backend(), Box{{0, 0, 0}, {nx, rows, levels}}, [=] BOUSS_HD(int i, int j, int l) {
    const int from = reorder ? cosine_reorder_source(i, nx) : i;
    lines[x_line_value(i, j, l, nx, rows)] = field[from + j * sy + (z0 + l) * sz];
  }, "pencil x lines from the field");
}
template <class R>
void x_lines_into_field(const R* lines, Field<R>& f, int z0, int levels, bool reorder) {
  const View<R> v = f.view();
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  const int nx = f.layout().n[0], rows = f.layout().n[1];
  R* const field = v.origin;
  for_each(f.backend(), Box{{0, 0, 0}, {nx, rows, levels}}, [=] BOUSS_HD(int i, int j, int l) {
    const int at = reorder ? cosine_reorder_target(i, nx) : i;
    field[i + j * sy + (z0 + l) * sz] = lines[x_line_value(at, j, l, nx, rows)];
  }, "pencil x lines into the field");
}

// One rank's rows of a piece (rows y0 .. y0 + rows of levels z0 .. z0 + levels) between its
// messages (w values a row, then rows, then levels) and the band ((column, z, y) order: w
// values a level, nz levels a row), in Makhoul's order along y (ny rows) where `reorder` says.
template <class R>
void copy_band_rows(const Backend& be, R* messages, R* band, int w, int y0, int rows, int z0, int levels, int nz, int ny,
                    bool reorder, bool into_band) {
  if (std::ptrdiff_t(w) * rows * levels <= 0) return;
  for_each(be, Box{{0, 0, 0}, {w, rows, levels}}, [=] BOUSS_HD(int v, int r, int l) {
    const int y = reorder ? cosine_reorder_target(y0 + r, ny) : y0 + r;
    R& at_band = band[v + std::ptrdiff_t(w) * (z0 + l + std::ptrdiff_t(nz) * y)];
    R& at_message = messages[v + std::ptrdiff_t(w) * (r + std::ptrdiff_t(rows) * l)];
    if (into_band) at_band = at_message;
    else at_message = at_band;
  }, into_band ? "pencil rows into the band" : "pencil rows from the band");
}

}  // namespace

template <class R>
bool PencilTransform<R>::fits(const std::array<int, 3>& n, int ranks, bool real_spectrum) {
  return ranks > 1 && ranks <= n[1] && (real_spectrum ? n[0] : n[0] / 2 + 1) >= ranks;
}

template <class R>
bool PencilTransform<R>::takes(const Grid& part, bool real_spectrum) {
  const auto& d = part.decomposition;
  return d && d->dims[0] == 1 && fits(part.global_n(), d->ranks(), real_spectrum);
}

template <class R>
int PencilTransform<R>::default_pieces(const Grid& part, std::size_t value_bytes, bool real_spectrum) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks();
  // what the x side sends each rank in one all-to-all: a band's columns of the block's rows
  const double values = real_spectrum ? double(n[0]) : 2.0 * double(n[0] / 2 + 1);
  const double per_rank = values / ranks * part.layout.n[1] * n[2] * value_bytes;
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
R2RLines PencilTransform<R>::x_r2r_lines(const Grid& part, int levels) {
  const std::array<int, 3>& nb = part.layout.n;
  return R2RLines{nb[0], std::max(1, nb[1] * levels), {1, nb[0]}};
}

template <class R>
double PencilTransform<R>::line_work_bytes(const Backend& backend, const Grid& part, int pieces, bool real_spectrum,
                                           bool bases) {
  std::vector<int> sizes;
  const std::vector<int> z = piece_cuts(part, pieces);
  for (std::size_t c = 0; c + 1 < z.size(); ++c)
    if (std::find(sizes.begin(), sizes.end(), z[c + 1] - z[c]) == sizes.end()) sizes.push_back(z[c + 1] - z[c]);
  const bool band = band_columns(part, real_spectrum) > 0;
  double bytes = 0;
  for (int levels : sizes) {
    if (real_spectrum) {
      bytes += double(LineR2R<R>::work_bytes(backend, x_r2r_lines(part, levels), bases));
      if (band) bytes += double(LineR2R<R>::work_bytes(backend, y_r2r_lines(part, levels), bases));
    } else {
      bytes += double(line_fft_work_bytes<R>(backend, x_lines(part, levels)));
      if (band) bytes += double(line_fft_work_bytes<R>(backend, y_lines(part, levels)));
    }
  }
  return bytes;
}

template <class R>
int PencilTransform<R>::band_columns(const Grid& part, bool real_spectrum) {
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks(), rank = part.decomposition->rank;
  const std::vector<int> k = even_cuts(real_spectrum ? n[0] : n[0] / 2 + 1, ranks);
  return k[rank + 1] - k[rank];
}

template <class R>
LineShape PencilTransform<R>::y_lines(const Grid& part, int levels) {
  const std::array<int, 3> n = part.global_n();
  const int columns = band_columns(part);
  LineShape s;
  s.kind = LineKind::complex;
  s.n = n[1];
  s.lines = std::max(1, columns * levels);
  s.real_side = s.complex_side = {std::max(1, columns * n[2]), 1};  // a y line's points lie a row apart
  return s;
}

template <class R>
R2RLines PencilTransform<R>::y_r2r_lines(const Grid& part, int levels) {
  const std::array<int, 3> n = part.global_n();
  const int columns = band_columns(part, true);
  return R2RLines{n[1], std::max(1, columns * levels), {std::max(1, columns * n[2]), 1}};
}

template <class R>
PencilTransform<R>::PencilTransform(const Backend& backend, const Grid& part, int pieces,
                                    const std::array<AxisTransform, 2>& kinds,
                                    const std::array<AxisEigenbasis, 2>* bases)
    : backend_(backend), part_(part), ranks_(backend.ranks().size()), rank_(backend.ranks().rank()), kinds_(kinds) {
  basis_ = bases != nullptr;
  real_ = basis_ || kinds[0] == AxisTransform::walled || kinds[1] == AxisTransform::walled;
  if (!takes(part, real_) || part.decomposition->ranks() != ranks_)
    throw std::logic_error("PencilTransform: expected a block of a grid cut along y alone over the backend's ranks");
  const std::array<int, 3> n = part.global_n();
  nx_ = n[0], ny_ = n[1], nz_ = n[2], rows_ = part.layout.n[1];
  vc_ = real_ ? 1 : 2;
  columns_ = real_ ? nx_ : nx_ / 2 + 1;
  xw_ = real_ && bases ? nx_ : 2 * (nx_ / 2 + 1);
  reorder_x_ = !bases && kinds[0] == AxisTransform::walled;
  reorder_y_ = !bases && kinds[1] == AxisTransform::walled;
  kcut_ = even_cuts(columns_, ranks_);
  k0_ = kcut_[rank_], width_ = kcut_[rank_ + 1] - k0_;
  const Decomposition& d = *part.decomposition;
  const std::vector<int> y = Decomposition::cuts(ny_, ranks_);
  for (int p = 0; p < ranks_; ++p) y0_.push_back(y[p]), ny_of_.push_back(y[p + 1] - y[p]);
  if (y0_[rank_] != d.offset[1] || ny_of_[rank_] != rows_)
    throw std::logic_error("PencilTransform: the blocks are not the decomposition's y cuts");
  // The lent staging arrays hold the block's x lines and their half spectra (or the x
  // transforms' work), and then the y transforms' work (each piece's at its levels).
  y_work_ = real_ && width_ > 0 ? LineR2R<R>::work_values(y_r2r_lines(part, 1), bases != nullptr) : 0;
  if (std::max(std::size_t(xw_) * rows_, y_work_) * nz_ > std::size_t(part.layout.size))
    throw std::logic_error("PencilTransform: the x spectrum or the y lines' work does not fit in an array of the layout");
  zcut_ = piece_cuts(part, pieces);
  const int count = int(zcut_.size()) - 1;
  for (int c = 0; c < count; ++c) {
    make_lines(0, zcut_[c + 1] - zcut_[c], bases);
    if (width_ > 0) make_lines(1, zcut_[c + 1] - zcut_[c], bases);
  }
  packed_ = std::make_unique<StreamEvent[]>(std::size_t(count));
  arrived_ = std::make_unique<StreamEvent[]>(std::size_t(count));
  forward_ = message_pieces(true);
  inverse_ = message_pieces(false);
}

template <class R>
void PencilTransform<R>::make_lines(int axis, int levels, const std::array<AxisEigenbasis, 2>* bases) {
  for (const Lines& l : lines_[axis])
    if (l.levels == levels) return;
  Lines l{levels, nullptr, nullptr};
  if (real_)
    l.r2r = std::make_unique<LineR2R<R>>(backend_, kinds_[axis],
                                         axis == 0 ? x_r2r_lines(part_, levels) : y_r2r_lines(part_, levels),
                                         bases ? &(*bases)[axis] : nullptr);
  else
    l.fft = make_line_fft<R>(backend_, axis == 0 ? x_lines(part_, levels) : y_lines(part_, levels));
  lines_[axis].push_back(std::move(l));
}

template <class R>
typename PencilTransform<R>::Lines& PencilTransform<R>::lines_of(int axis, int levels) {
  for (Lines& l : lines_[axis])
    if (l.levels == levels) return l;
  throw std::logic_error(std::string("PencilTransform: no ") + "xy"[axis] + " transform for a piece of " +
                         std::to_string(levels) + " levels");
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
      const std::size_t columns = sizeof(R) * vc_ * std::size_t(kcut_[p + 1] - kcut_[p]) * rows_ * levels;
      const std::size_t band = sizeof(R) * vc_ * std::size_t(width_) * ny_of_[p] * levels;
      m.out[p] = forward ? columns : band;
      m.in[p] = forward ? band : columns;
      pieces.sends += m.out[p], pieces.receipts += m.in[p];
    }
    pieces.each.push_back(std::move(m));
  }
  return pieces;
}

template <class R>
void PencilTransform<R>::post(std::size_t c, const Piece& m, const R* send, R* receive) {
  const Backend& be = backend_;
  void* const messages = be.message_stream();
  packed_[c].record_on(be, be.stream());
  packed_[c].make_wait(be, messages);
  transpose_all_to_all(be, send + m.send_at, m.out, receive + m.receive_at, m.in, messages);
  arrived_[c].record_on(be, messages);
}

template <class R>
void PencilTransform<R>::forward(const Field<R>& f, R* band, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int nx = nx_, lv = vc_ * columns_, w = vc_ * width_, rows = rows_;
  const std::vector<Piece>& pieces = forward_.each;
  R* const send = static_cast<R*>(be.buffer(Backend::Buffer::send, forward_.sends));
  R* const receive = static_cast<R*>(be.buffer(Backend::Buffer::receive, forward_.receipts));
  // 1. Each piece's x lines to their spectra (a real spectrum's in place of the lines, a
  // complex one's in staging_b), each band's columns of them packed and sent (on the message
  // stream) while the next piece is transformed.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    const int z0 = m.z0, levels = m.z1 - m.z0;
    R* const lines = staging_a + std::ptrdiff_t(nx) * rows * z0;
    R* const work = staging_b + std::ptrdiff_t(xw_) * rows * z0;
    x_lines_from_field(f, z0, levels, lines, reorder_x_);
    Lines& x = lines_of(0, levels);
    if (x.r2r) x.r2r->forward(lines, work);
    else x.fft->forward(lines, work);
    const R* const spectrum = real_ ? lines : work;
    R* const out = send + m.send_at;
    for (std::size_t q = 0, at = 0; q < std::size_t(ranks_); at += m.out[q] / sizeof(R), ++q) {
      const int wq = vc_ * (kcut_[q + 1] - kcut_[q]);
      copy_strided(be, spectrum + vc_ * kcut_[q], {lv, std::ptrdiff_t(lv) * rows}, out + at, {wq, std::ptrdiff_t(wq) * rows},
                   {wq, rows, levels});
    }
    post(c, m, send, receive);
  }
  // 2. Each piece's columns into the band, ordered (column, z, y), and its y lines
  // transformed while the pieces after it travel.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    arrived_[c].make_wait(be, be.stream());
    R* in = receive + m.receive_at;
    for (int p = 0; p < ranks_; ++p) {
      copy_band_rows(be, in, band, w, y0_[p], ny_of_[p], m.z0, m.z1 - m.z0, nz_, ny_, reorder_y_, true);
      in += m.in[p] / sizeof(R);
    }
    if (width_ == 0) continue;
    R* const levels = band + std::ptrdiff_t(w) * m.z0;
    Lines& y = lines_of(1, m.z1 - m.z0);
    if (y.r2r) y.r2r->forward(levels, staging_b + std::ptrdiff_t(y_work_) * m.z0);
    else y.fft->forward(levels, levels);
  }
}

template <class R>
void PencilTransform<R>::inverse(R* band, Field<R>& f, R* staging_a, R* staging_b) {
  const Backend& be = backend_;
  const int nx = nx_, lv = vc_ * columns_, w = vc_ * width_, rows = rows_;
  // 2'. Each piece's y lines back, its rows of every block packed and sent while the next
  // piece's are transformed.
  const std::vector<Piece>& pieces = inverse_.each;
  R* const send = static_cast<R*>(be.buffer(Backend::Buffer::send, inverse_.sends));
  R* const receive = static_cast<R*>(be.buffer(Backend::Buffer::receive, inverse_.receipts));
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    if (width_ > 0) {
      R* const levels = band + std::ptrdiff_t(w) * m.z0;
      Lines& y = lines_of(1, m.z1 - m.z0);
      if (y.r2r) y.r2r->inverse(levels, staging_b + std::ptrdiff_t(y_work_) * m.z0);
      else y.fft->inverse(levels, levels);
    }
    R* out = send + m.send_at;
    for (int q = 0; q < ranks_; ++q) {
      copy_band_rows(be, out, band, w, y0_[q], ny_of_[q], m.z0, m.z1 - m.z0, nz_, ny_, reorder_y_, false);
      out += m.out[q] / sizeof(R);
    }
    post(c, m, send, receive);
  }
  // 1'. Each piece's columns into this block's x spectra, its x lines back into f's interior.
  for (std::size_t c = 0; c < pieces.size(); ++c) {
    const Piece& m = pieces[c];
    const int z0 = m.z0, levels = m.z1 - m.z0;
    R* const lines = staging_a + std::ptrdiff_t(nx) * rows * z0;
    R* const work = staging_b + std::ptrdiff_t(xw_) * rows * z0;
    R* const spectrum = real_ ? lines : work;
    arrived_[c].make_wait(be, be.stream());
    const R* in = receive + m.receive_at;
    for (int p = 0; p < ranks_; ++p) {
      const int wp = vc_ * (kcut_[p + 1] - kcut_[p]);
      copy_strided(be, in, {wp, std::ptrdiff_t(wp) * rows}, spectrum + vc_ * kcut_[p], {lv, std::ptrdiff_t(lv) * rows},
                   {wp, rows, levels});
      in += m.in[p] / sizeof(R);
    }
    Lines& x = lines_of(0, levels);
    if (x.r2r) x.r2r->inverse(lines, work);
    else x.fft->inverse(work, lines);
    x_lines_into_field(lines, f, z0, levels, reorder_x_);
  }
}

template <class R>
double PencilTransform<R>::values_both_ways(const std::function<double(double, double)>&) const {
  const double block = double(part_.layout.cells()), band = double(band_values());
  // Each way: the block's x lines copied (read, write), their transforms, the spectra packed
  // into the messages (read, write), the messages into the band (read, write), the y
  // transforms. A complex spectrum's: the x FFTs (the lines and the half spectra), the half
  // spectra packed, the y FFTs in place (the band read and written). A real one's: the line
  // FFT and the orbit map (the lines and the half spectrum, each read once and written once)
  // or the product and its copy back (the lines read and written twice) along each axis.
  if (!real_) {
    const double half = 2.0 * columns_ * rows_ * nz_;
    return 2 * (2 * block + (block + half) + 2 * half + 2 * band + 2 * band);
  }
  const double x_half = 2.0 * (nx_ / 2 + 1) * rows_ * nz_, y_half = 2.0 * (ny_ / 2 + 1) * width_ * nz_;
  const double x = basis_ ? 4 * block : 2 * (block + x_half), y = basis_ ? 4 * band : 2 * (band + y_half);
  return 2 * (2 * block + x + 2 * block + 2 * band + y);
}

template <class R>
double PencilTransform<R>::estimate_memory(const Grid& part, std::size_t value_bytes, bool real_spectrum) {
  const std::array<int, 3> n = part.global_n();
  const double vc = real_spectrum ? 1.0 : 2.0, columns = real_spectrum ? n[0] : n[0] / 2 + 1;
  const double half = vc * columns * part.layout.n[1] * n[2], band = vc * band_columns(part, real_spectrum) * n[1] * n[2];
  // The sends and the receipts: the x spectra one way, the band the other.
  return double(value_bytes) * 2 * std::max(half, band);
}

template class PencilTransform<double>;
template class PencilTransform<float>;

}  // namespace bouss
