// Batched 2D real-to-complex FFTs over the z planes of a cell-centred field, behind one
// interface for both backends: cuFFT on CUDA (solver/direct/plane_fft_cuda.cu), FFTW on the CPU
// (solver/direct/plane_fft_fftw.cpp). The real side is the interior of a field in its padded layout
// (rows sy apart, planes sz apart: no gather or scatter copies); the complex side is the
// spectrum of each plane, (nx/2 + 1) x ny values x fastest, the planes one after another.
// Transforms are unnormalized (inverse(forward(f)) = nx ny f).
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "grid/backend.hpp"
#include "grid/config.hpp"
#include "grid/layout.hpp"
#include "solver/direct/complex.hpp"

namespace bouss {

template <class R>
class PlaneFft {
 public:
  virtual ~PlaneFft() = default;
  // interior: the field's (0, 0, 0) (its data plus the layout's origin); spectrum: memory of
  // the backend for spectrum_size(layout) values.
  virtual void forward(const R* interior, Complex<R>* spectrum) = 0;
  // The spectrum is destroyed; only the interior values are written.
  virtual void inverse(Complex<R>* spectrum, R* interior) = 0;
};

inline std::size_t spectrum_size(const Layout& L) { return std::size_t(L.n[0] / 2 + 1) * L.n[1] * L.n[2]; }

// The real-to-real plane transforms of a box with a walled horizontal axis: along x and y
// each, the DFT in FFTW's halfcomplex order (periodic) or the DCT-II, inverted by the
// DCT-III (walled); unnormalized (inverse(forward(f)) = axis_transform_scale(x) *
// axis_transform_scale(y) f: solver/direct/fourier_kernels.hpp). The spectrum is real,
// nx ny values a plane, x fastest, the planes one after another: the same count of values as
// the interior. Two: PlaneCosine (solver/direct/plane_cosine.hpp, both backends: what the
// direct solve uses) and FFTW's own r2r plans (the CPU's reference).
enum class AxisTransform : signed char;
template <class R>
class PlaneR2R {
 public:
  virtual ~PlaneR2R() = default;
  virtual void forward(const R* interior, R* spectrum) = 0;
  // The spectrum is destroyed; only the interior values are written.
  virtual void inverse(R* spectrum, R* interior) = 0;
};
inline std::size_t r2r_spectrum_size(const Layout& L) { return std::size_t(L.n[0]) * L.n[1] * L.n[2]; }
template <class R>
std::unique_ptr<PlaneR2R<R>> make_fftw_plane_r2r(const Layout& layout, const std::array<AxisTransform, 2>& kinds);

template <class R>
std::unique_ptr<PlaneFft<R>> make_plane_fft(const Backend& backend, const Layout& layout);
// Bytes of the backend's memory the work area of the transforms make_plane_fft would make
// takes (cuFFT's: one for both directions, allocated through the backend; FFTW's buffers
// are its own, on the host), without making them (the memory estimate): cuFFT's plans are
// built without their work area and measured.
template <class R>
std::size_t plane_fft_work_bytes(const Backend& backend, const Layout& layout);
template <class R>
std::size_t cufft_plane_work_bytes(const Layout& layout);
// The backends' own (make_plane_fft picks): cuFFT needs a CUDA build.
template <class R>
std::unique_ptr<PlaneFft<R>> make_cufft_plane_fft(const Backend& backend, const Layout& layout);
template <class R>
std::unique_ptr<PlaneFft<R>> make_fftw_plane_fft(const Layout& layout);

}  // namespace bouss
