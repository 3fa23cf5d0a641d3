// One horizontal axis's real-to-real transform over batched lines: the direct solve's on
// pencils (solver/direct/pencil_transform.hpp) where an axis is walled or stretched. A line of
// n real values goes to n real spectral values in the order the plane transforms give along
// that axis (solver/direct/plane_fft.hpp's PlaneR2R), so that the mode solves and their
// eigenvalues are the planes' (AxisEigen, TableEigen):
//   - periodic: FFTW's halfcomplex DFT (R2HC; HC2R back),
//   - walled: the cosine transform DCT-II (REDFT10; DCT-III back),
//     both through a real-to-half-spectrum line FFT (solver/direct/line_fft.hpp: cuFFT or
//     FFTW) and the orbit map of solver/direct/cosine_kernels.hpp along one axis: one source
//     for both backends,
//   - an eigenbasis (a stretched axis, or any axis the solve is asked to): a matrix product
//     (solver/direct/axis_eigenbasis.hpp over solver/direct/dense_gemm.hpp).
// Unnormalized as the plane transforms are: inverse(forward(f)) = axis_transform_scale f
// (fourier_kernels.hpp); the eigenbases' are normalized (f).
//
// A walled axis's FFT reads its lines in Makhoul's order (cosine_reorder_source): the caller
// lays the values out so as it copies them in, and reads the lines inverse leaves through
// cosine_reorder_target (reordered() says when): the copies the pencils make anyway (the
// field's x lines into staging, the received y rows into the band) reorder for nothing.
//
// The lines lie in one of two ways: contiguous (each line's points 1 apart, lines `dist`
// apart: x lines) or interleaved (points `stride` apart, lines 1 apart: y lines of a band's
// levels). The work array is dense either way.
#pragma once

#include <cstddef>
#include <memory>

#include "grid/backend.hpp"
#include "solver/direct/axis_eigenbasis.hpp"
#include "solver/direct/complex.hpp"
#include "solver/direct/dense_gemm.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/line_fft.hpp"

namespace bouss {

// The lines a LineR2R transforms: n points each, `lines` of them, spaced as `spacing` says
// (stride 1: contiguous; dist 1: interleaved).
struct R2RLines {
  int n = 1;
  int lines = 1;
  LineSpacing spacing{1, 1};
  bool contiguous() const { return spacing.stride == 1; }
};

// Where mode k of line l lies in a LineR2R's half spectrum (m = n/2 + 1 modes a line, `lines`
// lines): a line's modes together for contiguous lines, the lines' mode k together for
// interleaved ones.
BOUSS_HD inline std::ptrdiff_t line_half_at(bool contiguous, int l, int k, int m, int lines) {
  return contiguous ? std::ptrdiff_t(m) * l + k : l + std::ptrdiff_t(lines) * k;
}

template <class R>
class LineR2R {
 public:
  // basis: the axis's eigenbasis (n points) where the axis goes through it; else null (the FFT
  // of `kind`).
  LineR2R(const Backend& backend, AxisTransform kind, const R2RLines& lines, const AxisEigenbasis* basis = nullptr);
  ~LineR2R();
  LineR2R(const LineR2R&) = delete;
  LineR2R& operator=(const LineR2R&) = delete;

  // Whether the lines are read (forward) and left (inverse) in Makhoul's order.
  bool reordered() const { return !gemm_ && kind_ == AxisTransform::walled; }
  // In place: `lines` holds the input (reordered where reordered()) and receives the spectrum;
  // work: work_values() values of the backend, overwritten.
  void forward(R* lines, R* work);
  // The spectrum in `lines` back to the values (reordered where reordered()).
  void inverse(R* lines, R* work);
  // The FFT alone (not through a basis), for a caller whose own kernel applies the orbit map
  // (cosine_kernels.hpp's OrbitMap, with twiddles()): forward_half leaves the lines' half
  // spectrum in work (Complex<R> at line_half_at), inverse_half takes it back into the lines
  // (work overwritten).
  void forward_half(R* lines, R* work);
  void inverse_half(R* work, R* lines);
  const Complex<R>* twiddles() const { return twiddles_; }
  // Values of R the work array needs: the half spectrum's (the FFT), the product's (a basis).
  std::size_t work_values() const { return work_values(lines_, gemm_ != nullptr); }
  static std::size_t work_values(const R2RLines& lines, bool basis);
  // Bytes of the backend's memory it allocates: the FFT's work area and twiddles, or the
  // basis's two matrices and the product's work area (not the lines' nor the work array).
  static std::size_t work_bytes(const Backend& backend, const R2RLines& lines, bool basis);

 private:
  Backend backend_;
  AxisTransform kind_;
  R2RLines lines_;
  std::unique_ptr<LineFft<R>> fft_;
  Complex<R>* twiddles_ = nullptr;  // cosine_twiddle of every index (a walled axis's FFT)
  std::unique_ptr<DenseGemm<R>> gemm_;
  R* matrices_ = nullptr;           // the basis's forward, then its inverse (column-major n x n)
  static LineShape fft_shape(const R2RLines& lines);
  void multiply(const R* matrix, const R* in, R* out);
  void product(const R* matrix, R* lines, R* work);
};

}  // namespace bouss
