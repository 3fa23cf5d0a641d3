// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/line_r2r.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "grid/for_each.hpp"
#include "solver/direct/cosine_kernels.hpp"

namespace bouss {

template <class R>
LineShape LineR2R<R>::fft_shape(const R2RLines& L) {
  LineShape s;
  s.kind = LineKind::real;
  s.n = L.n;
  s.lines = L.lines;
  s.real_side = L.spacing;
  // The half spectrum: contiguous lines of n/2 + 1 modes, or interleaved as the lines are.
  s.complex_side = L.contiguous() ? LineSpacing{1, L.n / 2 + 1} : LineSpacing{L.lines, 1};
  return s;
}

template <class R>
std::size_t LineR2R<R>::work_values(const R2RLines& L, bool basis) {
  return basis ? std::size_t(L.n) * L.lines : std::size_t(2) * (L.n / 2 + 1) * L.lines;
}

template <class R>
std::size_t LineR2R<R>::work_bytes(const Backend& backend, const R2RLines& L, bool basis) {
  if (basis) return 2 * std::size_t(L.n) * L.n * sizeof(R) + dense_gemm_work_bytes(backend);
  return line_fft_work_bytes<R>(backend, fft_shape(L)) + std::size_t(L.n) * sizeof(Complex<R>);
}

template <class R>
LineR2R<R>::LineR2R(const Backend& backend, AxisTransform kind, const R2RLines& lines, const AxisEigenbasis* basis)
    : backend_(backend), kind_(kind), lines_(lines) {
  const LineSpacing& s = lines.spacing;
  const bool interleaved = s.dist == 1 && s.stride >= lines.lines;
  if (lines.n < 1 || lines.lines < 1 || !(lines.contiguous() && s.dist >= lines.n) && !interleaved)
    throw std::logic_error("LineR2R: expected contiguous lines (stride 1, dist >= n) or interleaved ones (dist 1, "
                           "stride >= lines)");
  if (basis) {
    if (basis->n != lines.n) throw std::invalid_argument("LineR2R: the eigenbasis is not of the lines' length");
    const std::size_t nn = std::size_t(lines.n) * lines.n;
    std::vector<R> host(2 * nn);
    for (std::size_t i = 0; i < nn; ++i) host[i] = R(basis->forward[i]), host[nn + i] = R(basis->inverse[i]);
    gemm_ = make_dense_gemm<R>(backend);
    matrices_ = static_cast<R*>(backend.allocate(host.size() * sizeof(R)));
    copy_bytes(matrices_, backend, host.data(), Backend::cpu(), host.size() * sizeof(R));
    return;
  }
  fft_ = make_line_fft<R>(backend, fft_shape(lines));
  std::vector<Complex<R>> w;
  for (int p = 0; p < lines.n; ++p) w.push_back(cosine_twiddle<R>(p, lines.n));
  twiddles_ = static_cast<Complex<R>*>(backend.allocate(w.size() * sizeof(Complex<R>)));
  copy_bytes(twiddles_, backend, w.data(), Backend::cpu(), w.size() * sizeof(Complex<R>));
}

template <class R>
LineR2R<R>::~LineR2R() {
  if (twiddles_) backend_.deallocate(twiddles_);
  if (matrices_) backend_.deallocate(matrices_);
}

// The product into the dense work array (n values a line: x fastest for contiguous lines,
// the line fastest for interleaved ones), then back into the lines' places.
template <class R>
void LineR2R<R>::multiply(const R* matrix, const R* in, R* out) {
  const int n = lines_.n, lines = lines_.lines;
  GemmShape g;
  if (lines_.contiguous()) {  // out (n x lines) = M (n x n) in (n x lines, columns dist apart)
    g.m = n, g.n = lines, g.k = n, g.lda = n, g.ldb = lines_.spacing.dist, g.ldc = n;
  } else {  // out (lines x n) = in (lines x n, columns stride apart) M^T
    g.trans_b = true;
    g.m = lines, g.n = n, g.k = n, g.lda = lines_.spacing.stride, g.ldb = n, g.ldc = lines;
  }
  gemm_->multiply(g, lines_.contiguous() ? matrix : in, lines_.contiguous() ? in : matrix, out);
}

namespace {
// A dense work array (n values a line: x fastest for contiguous lines, the line fastest for
// interleaved ones) into the lines' places.
template <class R>
void dense_into_lines(const Backend& be, const R2RLines& L, const R* work, R* lines) {
  const int n = L.n, count = L.lines;
  const std::ptrdiff_t stride = L.spacing.stride, dist = L.spacing.dist;
  const bool contiguous = L.contiguous();
  for_each(be, Box{{0, 0, 0}, {contiguous ? n : count, contiguous ? count : n, 1}}, [=] BOUSS_HD(int a, int b, int) {
    const int i = contiguous ? a : b, l = contiguous ? b : a;
    lines[l * dist + i * stride] = work[contiguous ? i + std::ptrdiff_t(n) * l : l + std::ptrdiff_t(count) * i];
  }, "eigenbasis lines back in place");
}
}  // namespace

// The product into the work array, then back into the lines' places.
template <class R>
void LineR2R<R>::product(const R* matrix, R* lines, R* work) {
  multiply(matrix, lines, work);
  dense_into_lines(backend_, lines_, work, lines);
}

template <class R>
void LineR2R<R>::forward(R* lines, R* work) {
  const int n = lines_.n, m = n / 2 + 1, count = lines_.lines;
  const std::ptrdiff_t stride = lines_.spacing.stride, dist = lines_.spacing.dist;
  const bool contiguous = lines_.contiguous();
  if (gemm_) return product(matrices_, lines, work);
  Complex<R>* const half = reinterpret_cast<Complex<R>*>(work);
  fft_->forward(lines, half);
  const AxisTransform kind = kind_;
  const Complex<R>* const tw = twiddles_;
  // One thread an orbit (k and n - k) of a line; the fastest index runs along the memory.
  for_each(backend_, Box{{0, 0, 0}, {contiguous ? m : count, contiguous ? count : m, 1}}, [=] BOUSS_HD(int a, int b, int) {
    const int k = contiguous ? a : b, l = contiguous ? b : a;
    const OrbitMap<R> map(AxisPair{kind, k, n}, AxisPair{AxisTransform::periodic, 0, 1}, tw, tw);
    const Complex<R> v = half[line_half_at(contiguous, l, k, m, count)];
    R y[2][2];
    map.forward(v, v, y);
    lines[l * dist + map.x.at(0) * stride] = y[0][0];
    if (map.x.distinct()) lines[l * dist + map.x.at(1) * stride] = y[1][0];
  }, "line orbits to real spectrum");
}

template <class R>
void LineR2R<R>::inverse(R* lines, R* work) {
  const int n = lines_.n, m = n / 2 + 1, count = lines_.lines;
  const std::ptrdiff_t stride = lines_.spacing.stride, dist = lines_.spacing.dist;
  const bool contiguous = lines_.contiguous();
  if (gemm_) return product(matrices_ + std::ptrdiff_t(n) * n, lines, work);
  Complex<R>* const half = reinterpret_cast<Complex<R>*>(work);
  const AxisTransform kind = kind_;
  const Complex<R>* const tw = twiddles_;
  for_each(backend_, Box{{0, 0, 0}, {contiguous ? m : count, contiguous ? count : m, 1}}, [=] BOUSS_HD(int a, int b, int) {
    const int k = contiguous ? a : b, l = contiguous ? b : a;
    const OrbitMap<R> map(AxisPair{kind, k, n}, AxisPair{AxisTransform::periodic, 0, 1}, tw, tw);
    const R own = lines[l * dist + map.x.at(0) * stride];
    const R mirror = map.x.distinct() ? lines[l * dist + map.x.at(1) * stride] : R(0);
    const R y[2][2] = {{own, own}, {mirror, mirror}};
    Complex<R> a0, b0;
    map.inverse(y, a0, b0);
    half[line_half_at(contiguous, l, k, m, count)] = a0;
  }, "line orbits from real spectrum");
  fft_->inverse(half, lines);
}

template <class R>
void LineR2R<R>::forward_half(R* lines, R* work) {
  if (gemm_) throw std::logic_error("LineR2R::forward_half: the lines go through a basis, not an FFT");
  fft_->forward(lines, reinterpret_cast<Complex<R>*>(work));
}

template <class R>
void LineR2R<R>::inverse_half(R* work, R* lines) {
  if (gemm_) throw std::logic_error("LineR2R::inverse_half: the lines go through a basis, not an FFT");
  fft_->inverse(reinterpret_cast<Complex<R>*>(work), lines);
}

template class LineR2R<double>;
template class LineR2R<float>;

}  // namespace bouss
