// The plane transforms of a box with a walled horizontal axis, for both backends from one
// source: each z plane reordered along its walled axes (Makhoul's cosine transform), its 2D
// real-to-complex FFT (solver/direct/plane_fft.hpp: cuFFT or FFTW), and the orbit maps of
// solver/direct/cosine_kernels.hpp between that half spectrum and the real-to-real one (FFTW's
// REDFT10 along a walled axis, R2HC along a periodic one). The direct solve takes the half
// spectrum and fuses the orbit maps into its mode solves (solver/direct/fourier_solver.cu);
// forward and inverse give the real-to-real spectrum itself (PlaneR2R).
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "grid/backend.hpp"
#include "grid/layout.hpp"
#include "solver/direct/complex.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/plane_fft.hpp"

namespace bouss {

// A layout of nx ny nz values without ghosts or padding, x fastest: the reordered planes.
inline Layout packed_layout(const std::array<int, 3>& n, std::size_t elem_bytes) {
  Layout L;
  L.n = n;
  L.ghost = 0;
  L.elem_bytes = elem_bytes;
  L.sy = n[0];
  L.sz = std::ptrdiff_t(n[0]) * n[1];
  L.origin = 0;
  L.size = L.sz * n[2];
  return L;
}

template <class R>
class PlaneCosine final : public PlaneR2R<R> {
 public:
  // layout: the fields' (the interior is read and written through its strides); at least
  // one axis walled (a periodic box is the plane FFT's alone: solver/direct/plane_fft.hpp).
  PlaneCosine(const Backend& backend, const Layout& layout, const std::array<AxisTransform, 2>& kinds);
  ~PlaneCosine() override;
  PlaneCosine(const PlaneCosine&) = delete;
  PlaneCosine& operator=(const PlaneCosine&) = delete;

  // The interior reordered into `staging` (nx ny nz values), and its planes' half spectra
  // into `spectrum` (spectrum_size values: (nx/2 + 1) ny a plane, x fastest).
  void to_half_spectrum(const R* interior, R* staging, Complex<R>* spectrum);
  // Back (the spectrum is destroyed): only the interior values are written.
  void from_half_spectrum(Complex<R>* spectrum, R* staging, R* interior);

  // Between the half spectrum and the real-to-real one (r2r_spectrum_size values, x fastest):
  // each orbit's map (solver/direct/cosine_kernels.hpp).
  void to_real_spectrum(const Complex<R>* half, R* real);
  void from_real_spectrum(const R* real, Complex<R>* half);

  // PlaneR2R: the real-to-real spectrum (r2r_spectrum_size values, x fastest), through
  // arrays of its own (allocated at the first call).
  void forward(const R* interior, R* spectrum) override;
  void inverse(R* spectrum, R* interior) override;

  const std::array<AxisTransform, 2>& kinds() const { return kinds_; }
  // The backend memory the transforms take besides the arrays they are given (cuFFT's work
  // area and the twiddle table), without making them.
  static std::size_t work_bytes(const Backend& backend, const Layout& layout);

 private:
  Backend backend_;
  Layout L_;
  std::array<AxisTransform, 2> kinds_;
  std::unique_ptr<PlaneFft<R>> fft_;
  R* staging_ = nullptr;
  Complex<R>* half_ = nullptr;
  Complex<R>* twiddles_ = nullptr;  // cosine_twiddle of every index, x's then y's
  void own_arrays();
};

}  // namespace bouss
