// FFTW's batched line transforms for the CPU backend (solver/direct/line_fft.hpp).
#include <stdexcept>

#include "solver/direct/fftw_api.hpp"
#include "solver/direct/line_fft.hpp"

namespace bouss {
namespace {

template <class R>
class FftwLines final : public LineFft<R> {
  using F = Fftw<R>;

 public:
  explicit FftwLines(const LineShape& s) : kind_(s.kind) {
    int n[1] = {s.n};
    int real_embed[1] = {s.n}, spec_embed[1] = {s.kind == LineKind::real ? s.n / 2 + 1 : s.n};
    const LineSpacing& r = s.real_side;
    const LineSpacing& c = s.complex_side;
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    const FftwPlanningArrays a;
    auto* spec = static_cast<typename F::Cx*>(a.spec);
    // FFTW_ESTIMATE plans without touching arrays; FFTW_UNALIGNED lets the new-array execute
    // functions take any array. The complex transforms run in place (planned so).
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    if (s.kind == LineKind::real) {
      R* real = static_cast<R*>(a.real);
      fwd_ = F::plan_r2c(1, n, s.lines, real, real_embed, r.stride, r.dist, spec, spec_embed, c.stride, c.dist, flags);
      inv_ = F::plan_c2r(1, n, s.lines, spec, spec_embed, c.stride, c.dist, real, real_embed, r.stride, r.dist, flags);
    } else {
      if (r.stride != c.stride || r.dist != c.dist)
        throw std::logic_error("FFTW line transforms: a complex transform runs in place (one spacing)");
      fwd_ = F::plan_c2c(1, n, s.lines, spec, spec_embed, c.stride, c.dist, spec, spec_embed, c.stride, c.dist,
                         FFTW_FORWARD, flags);
      inv_ = F::plan_c2c(1, n, s.lines, spec, spec_embed, c.stride, c.dist, spec, spec_embed, c.stride, c.dist,
                         FFTW_BACKWARD, flags);
    }
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW: could not plan the line transforms");
  }
  ~FftwLines() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    F::destroy(fwd_);
    F::destroy(inv_);
  }
  void forward(const void* in, void* out) override {
    if (kind_ == LineKind::real) {
      F::exec_r2c(fwd_, static_cast<R*>(const_cast<void*>(in)), static_cast<typename F::Cx*>(out));
    } else {
      in_place(in, out);
      F::exec_c2c(fwd_, static_cast<typename F::Cx*>(out), static_cast<typename F::Cx*>(out));
    }
  }
  void inverse(void* in, void* out) override {
    if (kind_ == LineKind::real) {
      F::exec_c2r(inv_, static_cast<typename F::Cx*>(in), static_cast<R*>(out));
    } else {
      in_place(in, out);
      F::exec_c2c(inv_, static_cast<typename F::Cx*>(out), static_cast<typename F::Cx*>(out));
    }
  }

 private:
  static void in_place(const void* in, const void* out) {
    if (in != out) throw std::logic_error("FFTW line transforms: a complex transform runs in place");
  }
  LineKind kind_;
  typename F::Plan fwd_ = nullptr, inv_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<LineFft<R>> make_fftw_line_fft(const LineShape& shape) {
  return std::make_unique<FftwLines<R>>(shape);
}
template std::unique_ptr<LineFft<double>> make_fftw_line_fft<double>(const LineShape&);
template std::unique_ptr<LineFft<float>> make_fftw_line_fft<float>(const LineShape&);

template <class R>
std::unique_ptr<LineFft<R>> make_line_fft(const Backend& backend, const LineShape& shape) {
  if (backend.is_cuda()) return make_cufft_line_fft<R>(backend, shape);
  return make_fftw_line_fft<R>(shape);
}
template std::unique_ptr<LineFft<double>> make_line_fft<double>(const Backend&, const LineShape&);
template std::unique_ptr<LineFft<float>> make_line_fft<float>(const Backend&, const LineShape&);

template <class R>
std::size_t line_fft_work_bytes(const Backend& backend, const LineShape& shape) {
  return backend.is_cuda() ? cufft_line_work_bytes<R>(shape) : 0;
}
template std::size_t line_fft_work_bytes<double>(const Backend&, const LineShape&);
template std::size_t line_fft_work_bytes<float>(const Backend&, const LineShape&);

}  // namespace bouss
