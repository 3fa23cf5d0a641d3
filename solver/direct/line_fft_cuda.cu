// cuFFT's batched line transforms for the CUDA backend (solver/direct/line_fft.hpp); in a
// build without CUDA, make_cufft_line_fft says so.
#include "solver/direct/line_fft.hpp"

#include <utility>
#include <stdexcept>

#if defined(BOUSS_HAVE_CUDA)
#include <cufft.h>

#include "solver/direct/cufft_check.hpp"
#include "solver/direct/cufft_plan_pair.hpp"
#endif

namespace bouss {

#if defined(BOUSS_HAVE_CUDA)
namespace {

constexpr auto check = cufft_check;

template <class R>
class CufftLines final : public LineFft<R> {
  static constexpr bool dbl = sizeof(R) == sizeof(double);

 public:
  CufftLines(const Backend& backend, const LineShape& s) : plans_(backend, planner(s)), kind_(s.kind) {}
  // The forward and inverse plans of the lines (solver/direct/cufft_plan_pair.hpp).
  static CufftPlanPair::Planner planner(const LineShape& s) {
    return [s](cufftHandle fwd, cufftHandle inv) {
      int n[1] = {s.n}, real_embed[1] = {s.n}, spec_embed[1] = {s.kind == LineKind::real ? s.n / 2 + 1 : s.n};
      const LineSpacing& r = s.real_side;
      const LineSpacing& c = s.complex_side;
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
      return std::make_pair(fwd_bytes, inv_bytes);
    };
  }
  void forward(const void* in, void* out) override {
    if (kind_ == LineKind::real) {
      if constexpr (dbl)
        check(cufftExecD2Z(plans_.forward(), static_cast<double*>(const_cast<void*>(in)), static_cast<cufftDoubleComplex*>(out)),
              "forward lines");
      else
        check(cufftExecR2C(plans_.forward(), static_cast<float*>(const_cast<void*>(in)), static_cast<cufftComplex*>(out)),
              "forward lines");
    } else {
      if constexpr (dbl)
        check(cufftExecZ2Z(plans_.forward(), static_cast<cufftDoubleComplex*>(const_cast<void*>(in)),
                           static_cast<cufftDoubleComplex*>(out), CUFFT_FORWARD),
              "forward lines");
      else
        check(cufftExecC2C(plans_.forward(), static_cast<cufftComplex*>(const_cast<void*>(in)), static_cast<cufftComplex*>(out),
                           CUFFT_FORWARD),
              "forward lines");
    }
  }
  void inverse(void* in, void* out) override {
    if (kind_ == LineKind::real) {
      if constexpr (dbl)
        check(cufftExecZ2D(plans_.inverse(), static_cast<cufftDoubleComplex*>(in), static_cast<double*>(out)), "inverse lines");
      else
        check(cufftExecC2R(plans_.inverse(), static_cast<cufftComplex*>(in), static_cast<float*>(out)), "inverse lines");
    } else {
      if constexpr (dbl)
        check(cufftExecZ2Z(plans_.inverse(), static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                           CUFFT_INVERSE),
              "inverse lines");
      else
        check(cufftExecC2C(plans_.inverse(), static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), CUFFT_INVERSE),
              "inverse lines");
    }
  }

 private:
  CufftPlanPair plans_;
  LineKind kind_;
};

}  // namespace

template <class R>
std::unique_ptr<LineFft<R>> make_cufft_line_fft(const Backend& backend, const LineShape& shape) {
  return std::make_unique<CufftLines<R>>(backend, shape);
}
template <class R>
std::size_t cufft_line_work_bytes(const LineShape& shape) {
  return CufftPlanPair::work_bytes(CufftLines<R>::planner(shape));
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
