// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/plane_cosine.hpp"

#include <stdexcept>
#include <vector>

#include "grid/for_each.hpp"
#include "solver/direct/cosine_kernels.hpp"

namespace bouss {

template <class R>
PlaneCosine<R>::PlaneCosine(const Backend& backend, const Layout& layout, const std::array<AxisTransform, 2>& kinds)
    : backend_(backend), L_(layout), kinds_(kinds) {
  if (kinds[0] == AxisTransform::periodic && kinds[1] == AxisTransform::periodic)
    throw std::logic_error("cosine plane transforms: expected a walled axis, got x and y periodic (the plane FFT's box)");
  fft_ = make_plane_fft<R>(backend, packed_layout(layout.n, sizeof(R)));
  // Each axis's twiddles by index, x's then y's.
  std::vector<Complex<R>> w;
  for (int axis = 0; axis < 2; ++axis)
    for (int p = 0; p < layout.n[axis]; ++p) w.push_back(cosine_twiddle<R>(p, layout.n[axis]));
  twiddles_ = static_cast<Complex<R>*>(backend.allocate(w.size() * sizeof(Complex<R>)));
  copy_bytes(twiddles_, backend, w.data(), Backend::cpu(), w.size() * sizeof(Complex<R>));
}

template <class R>
PlaneCosine<R>::~PlaneCosine() {
  if (staging_) backend_.deallocate(staging_);
  if (half_) backend_.deallocate(half_);
  if (twiddles_) backend_.deallocate(twiddles_);
}

template <class R>
std::size_t PlaneCosine<R>::work_bytes(const Backend& backend, const Layout& layout) {
  return plane_fft_work_bytes<R>(backend, packed_layout(layout.n, sizeof(R))) +
         std::size_t(layout.n[0] + layout.n[1]) * sizeof(Complex<R>);  // the twiddle table
}

template <class R>
void PlaneCosine<R>::to_half_spectrum(const R* interior, R* staging, Complex<R>* spectrum) {
  const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2];
  const std::ptrdiff_t sy = L_.sy, sz = L_.sz;
  const bool wx = kinds_[0] == AxisTransform::walled, wy = kinds_[1] == AxisTransform::walled;
  for_each(backend_, Box{{0, 0, 0}, {nx, ny, nz}}, [=] BOUSS_HD(int i, int j, int k) {
    const int from_i = wx ? cosine_reorder_source(i, nx) : i, from_j = wy ? cosine_reorder_source(j, ny) : j;
    staging[i + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(ny) * k)] = interior[from_i + sy * from_j + sz * k];
  }, "cosine planes reordered");
  fft_->forward(staging, spectrum);
}

template <class R>
void PlaneCosine<R>::from_half_spectrum(Complex<R>* spectrum, R* staging, R* interior) {
  const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2];
  const std::ptrdiff_t sy = L_.sy, sz = L_.sz;
  const bool wx = kinds_[0] == AxisTransform::walled, wy = kinds_[1] == AxisTransform::walled;
  fft_->inverse(spectrum, staging);
  for_each(backend_, Box{{0, 0, 0}, {nx, ny, nz}}, [=] BOUSS_HD(int i, int j, int k) {
    const int at_i = wx ? cosine_reorder_target(i, nx) : i, at_j = wy ? cosine_reorder_target(j, ny) : j;
    interior[i + sy * j + sz * k] = staging[at_i + std::ptrdiff_t(nx) * (at_j + std::ptrdiff_t(ny) * k)];
  }, "cosine planes reordered back");
}

template <class R>
void PlaneCosine<R>::own_arrays() {
  if (staging_) return;
  staging_ = static_cast<R*>(backend_.allocate(r2r_spectrum_size(L_) * sizeof(R)));
  half_ = static_cast<Complex<R>*>(backend_.allocate(spectrum_size(L_) * sizeof(Complex<R>)));
}

template <class R>
void PlaneCosine<R>::to_real_spectrum(const Complex<R>* half, R* out) {
  const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2], mx = nx / 2 + 1;
  const AxisTransform kx = kinds_[0], ky = kinds_[1];
  const Complex<R>* const tx = twiddles_;
  for_each(backend_, Box{{0, 0, 0}, {mx, ny / 2 + 1, nz}}, [=] BOUSS_HD(int i, int j, int k) {
    const OrbitMap<R> map(AxisPair{kx, i, nx}, AxisPair{ky, j, ny}, tx, tx + nx);
    const Complex<R>* plane = half + std::ptrdiff_t(mx) * ny * k;
    R y[2][2];
    map.forward(plane[i + std::ptrdiff_t(mx) * j], plane[i + std::ptrdiff_t(mx) * map.y.at(1)], y);
    for (int sx = 0; sx < 2; ++sx)
      for (int sy = 0; sy < 2; ++sy)
        if (map.active(sx, sy)) out[map.x.at(sx) + std::ptrdiff_t(nx) * (map.y.at(sy) + std::ptrdiff_t(ny) * k)] = y[sx][sy];
  }, "cosine orbits to real spectrum");
}

template <class R>
void PlaneCosine<R>::from_real_spectrum(const R* in, Complex<R>* half) {
  const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2], mx = nx / 2 + 1;
  const AxisTransform kx = kinds_[0], ky = kinds_[1];
  const Complex<R>* const tx = twiddles_;
  for_each(backend_, Box{{0, 0, 0}, {mx, ny / 2 + 1, nz}}, [=] BOUSS_HD(int i, int j, int k) {
    const OrbitMap<R> map(AxisPair{kx, i, nx}, AxisPair{ky, j, ny}, tx, tx + nx);
    R y[2][2];
    for (int sx = 0; sx < 2; ++sx)
      for (int sy = 0; sy < 2; ++sy)
        y[sx][sy] = map.active(sx, sy) ? in[map.x.at(sx) + std::ptrdiff_t(nx) * (map.y.at(sy) + std::ptrdiff_t(ny) * k)]
                                       : R(0);
    Complex<R> a, b;
    map.inverse(y, a, b);
    Complex<R>* plane = half + std::ptrdiff_t(mx) * ny * k;
    plane[i + std::ptrdiff_t(mx) * j] = a;
    if (map.y.distinct()) plane[i + std::ptrdiff_t(mx) * map.y.at(1)] = b;
  }, "cosine orbits from real spectrum");
}

template <class R>
void PlaneCosine<R>::forward(const R* interior, R* out) {
  own_arrays();
  to_half_spectrum(interior, staging_, half_);
  to_real_spectrum(half_, out);
}

template <class R>
void PlaneCosine<R>::inverse(R* in, R* interior) {
  own_arrays();
  from_real_spectrum(in, half_);
  from_half_spectrum(half_, staging_, interior);
}

template class PlaneCosine<double>;
template class PlaneCosine<float>;

}  // namespace bouss
