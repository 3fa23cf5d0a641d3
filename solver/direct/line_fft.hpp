// Batched one-dimensional FFTs along one axis of a dense array, for the direct solve's
// transforms on pencils (solver/direct/pencil_transform.hpp), behind one interface for both
// backends: cuFFT on CUDA (solver/direct/line_fft_cuda.cu), FFTW on the CPU
// (solver/direct/line_fft_fftw.cpp). A transform runs over `lines` lines of n points, each
// line's points `stride` values apart and the lines `dist` values apart (a value: an R on the
// real side, a Complex<R> on the complex side). Unnormalized, as the plane transforms are
// (inverse(forward(f)) = n f).
#pragma once

#include <cstddef>
#include <memory>

#include "grid/backend.hpp"
#include "solver/direct/complex.hpp"

namespace bouss {

// Where a transform's lines lie in an array.
struct LineSpacing {
  int stride = 1;  // between a line's points
  int dist = 0;    // between the first points of consecutive lines
};

// What a line transform does: real to half-spectrum (n real points, n/2 + 1 complex modes
// a line) or complex to complex (n each way, in place allowed).
enum class LineKind { real, complex };

template <class R>
class LineFft {
 public:
  virtual ~LineFft() = default;
  // real: in is R*, out Complex<R>*; complex: both Complex<R>*.
  virtual void forward(const void* in, void* out) = 0;
  // The input is destroyed (a complex-to-real inverse overwrites its spectrum).
  virtual void inverse(void* in, void* out) = 0;
};

struct LineShape {
  LineKind kind = LineKind::complex;
  int n = 1;      // points a line (the real side's for LineKind::real)
  int lines = 1;  // at least 1
  LineSpacing real_side;      // the input of forward (R values for LineKind::real)
  LineSpacing complex_side;   // the output of forward (Complex<R> values)
};

// cuFFT's on a CUDA backend, FFTW's on the CPU.
template <class R>
std::unique_ptr<LineFft<R>> make_line_fft(const Backend& backend, const LineShape& shape);
// Bytes of the backend's memory the transform's work area takes (cuFFT's; FFTW's is on the
// host), without making it: the memory estimate's.
template <class R>
std::size_t line_fft_work_bytes(const Backend& backend, const LineShape& shape);
// The backends' own (make_line_fft picks): cuFFT's needs a CUDA build.
template <class R>
std::unique_ptr<LineFft<R>> make_cufft_line_fft(const Backend& backend, const LineShape& shape);
template <class R>
std::size_t cufft_line_work_bytes(const LineShape& shape);
template <class R>
std::unique_ptr<LineFft<R>> make_fftw_line_fft(const LineShape& shape);

}  // namespace bouss
