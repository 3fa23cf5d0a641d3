// cuFFT's batched line transforms for the CUDA backend (solver/direct/line_fft.hpp); in a
// build without CUDA, make_cufft_line_fft says so.
#include "solver/direct/line_fft.hpp"

#include <algorithm>
#include <stdexcept>

#if defined(BOUSS_HAVE_CUDA)
#include <cufft.h>

#include "solver/direct/cufft_check.hpp"
#endif

namespace bouss {

#if defined(BOUSS_HAVE_CUDA)
namespace {

constexpr auto check = cufft_check;

template <class R>
class CufftLines final : public LineFft<R> {
  static constexpr bool dbl = sizeof(R) == sizeof(double);

 public:
  // The two plans share one work area (they never run at once), allocated through the backend.
  CufftLines(const Backend& backend, const LineShape& s) : backend_(backend), kind_(s.kind) {
    const std::size_t work_bytes = make_plans(s, fwd_, inv_);
    try {
      if (work_bytes) work_ = backend_.allocate(work_bytes);
      check(cufftSetWorkArea(fwd_, work_), "work area");
      check(cufftSetWorkArea(inv_, work_), "work area");
      const auto stream = static_cast<cudaStream_t>(backend.stream());
      check(cufftSetStream(fwd_, stream), "set stream");
      check(cufftSetStream(inv_, stream), "set stream");
    } catch (...) {
      release();
      throw;
    }
  }
  // Both plans without work areas; the larger work area they need. On failure no plan is left.
  static std::size_t make_plans(const LineShape& s, cufftHandle& fwd, cufftHandle& inv) {
    check(cufftCreate(&fwd), "create");
    if (const cufftResult e = cufftCreate(&inv); e != CUFFT_SUCCESS) {
      cufftDestroy(fwd);
      check(e, "create");
    }
    try {
      int n[1] = {s.n}, real_embed[1] = {s.n}, spec_embed[1] = {s.kind == LineKind::real ? s.n / 2 + 1 : s.n};
      const LineSpacing& r = s.real_side;
      const LineSpacing& c = s.complex_side;
      check(cufftSetAutoAllocation(fwd, 0), "work area");
      check(cufftSetAutoAllocation(inv, 0), "work area");
      std::size_t fwd_bytes = 0, inv_bytes = 0;
      const bool real = s.kind == LineKind::real;
      const cufftType to = real ? (dbl ? CUFFT_D2Z : CUFFT_R2C) : (dbl ? CUFFT_Z2Z : CUFFT_C2C);
      const cufftType back = real ? (dbl ? CUFFT_Z2D : CUFFT_C2R) : (dbl ? CUFFT_Z2Z : CUFFT_C2C);
      check(cufftMakePlanMany(fwd, 1, n, real_embed, r.stride, r.dist, spec_embed, c.stride, c.dist, to, s.lines,
                              &fwd_bytes),
            "plan forward lines");
      check(cufftMakePlanMany(inv, 1, n, spec_embed, c.stride, c.dist, real_embed, r.stride, r.dist, back, s.lines,
                              &inv_bytes),
            "plan inverse lines");
      return std::max(fwd_bytes, inv_bytes);
    } catch (...) {
      cufftDestroy(fwd);
      cufftDestroy(inv);
      throw;
    }
  }
  ~CufftLines() override { release(); }
  void forward(const void* in, void* out) override {
    if (kind_ == LineKind::real) {
      if constexpr (dbl)
        check(cufftExecD2Z(fwd_, static_cast<double*>(const_cast<void*>(in)), static_cast<cufftDoubleComplex*>(out)),
              "forward lines");
      else
        check(cufftExecR2C(fwd_, static_cast<float*>(const_cast<void*>(in)), static_cast<cufftComplex*>(out)),
              "forward lines");
    } else {
      if constexpr (dbl)
        check(cufftExecZ2Z(fwd_, static_cast<cufftDoubleComplex*>(const_cast<void*>(in)),
                           static_cast<cufftDoubleComplex*>(out), CUFFT_FORWARD),
              "forward lines");
      else
        check(cufftExecC2C(fwd_, static_cast<cufftComplex*>(const_cast<void*>(in)), static_cast<cufftComplex*>(out),
                           CUFFT_FORWARD),
              "forward lines");
    }
  }
  void inverse(void* in, void* out) override {
    if (kind_ == LineKind::real) {
      if constexpr (dbl)
        check(cufftExecZ2D(inv_, static_cast<cufftDoubleComplex*>(in), static_cast<double*>(out)), "inverse lines");
      else
        check(cufftExecC2R(inv_, static_cast<cufftComplex*>(in), static_cast<float*>(out)), "inverse lines");
    } else {
      if constexpr (dbl)
        check(cufftExecZ2Z(inv_, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                           CUFFT_INVERSE),
              "inverse lines");
      else
        check(cufftExecC2C(inv_, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), CUFFT_INVERSE),
              "inverse lines");
    }
  }

 private:
  void release() {
    cufftDestroy(fwd_);
    cufftDestroy(inv_);
    if (work_) backend_.deallocate(work_);
  }
  Backend backend_;
  LineKind kind_;
  cufftHandle fwd_ = 0, inv_ = 0;
  void* work_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<LineFft<R>> make_cufft_line_fft(const Backend& backend, const LineShape& shape) {
  return std::make_unique<CufftLines<R>>(backend, shape);
}
template <class R>
std::size_t cufft_line_work_bytes(const LineShape& shape) {
  cufftHandle fwd = 0, inv = 0;
  const std::size_t bytes = CufftLines<R>::make_plans(shape, fwd, inv);
  cufftDestroy(fwd);
  cufftDestroy(inv);
  return bytes;
}
#else
template <class R>
std::unique_ptr<LineFft<R>> make_cufft_line_fft(const Backend&, const LineShape&) {
  throw std::logic_error("cuFFT line transforms: this build has no CUDA");
}
template <class R>
std::size_t cufft_line_work_bytes(const LineShape&) {
  return 0;
}
#endif

template std::unique_ptr<LineFft<double>> make_cufft_line_fft<double>(const Backend&, const LineShape&);
template std::unique_ptr<LineFft<float>> make_cufft_line_fft<float>(const Backend&, const LineShape&);
template std::size_t cufft_line_work_bytes<double>(const LineShape&);
template std::size_t cufft_line_work_bytes<float>(const LineShape&);

}  // namespace bouss
