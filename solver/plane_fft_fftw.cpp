// FFTW's batched plane transforms for the CPU backend (solver/plane_fft.hpp).
#include <fftw3.h>

#include <mutex>
#include <stdexcept>

#include "solver/plane_fft.hpp"

namespace bouss {
namespace {

// FFTW's planner is not thread-safe: plans are made and destroyed one at a time.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// The plan-many geometry of a layout: each z plane a ny x nx transform, rows sy apart in
// the field, mx = nx/2 + 1 apart in the spectrum.
struct Geometry {
  int n[2], real_embed[2], spec_embed[2], planes;
  int real_dist, spec_dist;
  explicit Geometry(const Layout& L)
      : n{L.n[1], L.n[0]},
        real_embed{int(L.sz / L.sy), int(L.sy)},
        spec_embed{L.n[1], L.n[0] / 2 + 1},
        planes(L.n[2]),
        real_dist(int(L.sz)),
        spec_dist(L.n[1] * (L.n[0] / 2 + 1)) {}
};

// Two distinct, aligned arrays to plan with: FFTW_ESTIMATE reads and writes neither, but takes
// equal pointers (null ones too) for an in-place transform, whose layout differs.
struct PlanningArrays {
  void* real = fftw_malloc(64);
  void* spec = fftw_malloc(64);
  ~PlanningArrays() {
    fftw_free(real);
    fftw_free(spec);
  }
};

class FftwDouble final : public PlaneFft<double> {
 public:
  explicit FftwDouble(const Layout& L) {
    const Geometry g(L);
    std::lock_guard<std::mutex> lock(planner_mutex());
    // FFTW_ESTIMATE plans without touching arrays; FFTW_UNALIGNED lets the new-array execute
    // functions take any field.
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    const PlanningArrays a;
    double* real = static_cast<double*>(a.real);
    fftw_complex* spec = static_cast<fftw_complex*>(a.spec);
    fwd_ = fftw_plan_many_dft_r2c(2, g.n, g.planes, real, g.real_embed, 1, g.real_dist, spec, g.spec_embed, 1,
                                  g.spec_dist, flags);
    inv_ = fftw_plan_many_dft_c2r(2, g.n, g.planes, spec, g.spec_embed, 1, g.spec_dist, real, g.real_embed, 1,
                                  g.real_dist, flags);
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW: could not plan the plane transforms");
  }
  ~FftwDouble() override {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(fwd_);
    fftw_destroy_plan(inv_);
  }
  void forward(const double* in, Complex<double>* out) override {
    fftw_execute_dft_r2c(fwd_, const_cast<double*>(in), reinterpret_cast<fftw_complex*>(out));
  }
  void inverse(Complex<double>* in, double* out) override {
    fftw_execute_dft_c2r(inv_, reinterpret_cast<fftw_complex*>(in), out);
  }

 private:
  fftw_plan fwd_ = nullptr, inv_ = nullptr;
};

class FftwFloat final : public PlaneFft<float> {
 public:
  explicit FftwFloat(const Layout& L) {
    const Geometry g(L);
    std::lock_guard<std::mutex> lock(planner_mutex());
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    const PlanningArrays a;
    float* real = static_cast<float*>(a.real);
    fftwf_complex* spec = static_cast<fftwf_complex*>(a.spec);
    fwd_ = fftwf_plan_many_dft_r2c(2, g.n, g.planes, real, g.real_embed, 1, g.real_dist, spec, g.spec_embed, 1,
                                   g.spec_dist, flags);
    inv_ = fftwf_plan_many_dft_c2r(2, g.n, g.planes, spec, g.spec_embed, 1, g.spec_dist, real, g.real_embed, 1,
                                   g.real_dist, flags);
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW: could not plan the plane transforms");
  }
  ~FftwFloat() override {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_destroy_plan(fwd_);
    fftwf_destroy_plan(inv_);
  }
  void forward(const float* in, Complex<float>* out) override {
    fftwf_execute_dft_r2c(fwd_, const_cast<float*>(in), reinterpret_cast<fftwf_complex*>(out));
  }
  void inverse(Complex<float>* in, float* out) override {
    fftwf_execute_dft_c2r(inv_, reinterpret_cast<fftwf_complex*>(in), out);
  }

 private:
  fftwf_plan fwd_ = nullptr, inv_ = nullptr;
};

}  // namespace

template <>
std::unique_ptr<PlaneFft<double>> make_fftw_plane_fft<double>(const Layout& L) {
  return std::make_unique<FftwDouble>(L);
}
template <>
std::unique_ptr<PlaneFft<float>> make_fftw_plane_fft<float>(const Layout& L) {
  return std::make_unique<FftwFloat>(L);
}

template <class R>
std::unique_ptr<PlaneFft<R>> make_plane_fft(const Backend& backend, const Layout& layout) {
  if (backend.is_cuda()) return make_cufft_plane_fft<R>(backend, layout);
  return make_fftw_plane_fft<R>(layout);
}
template std::unique_ptr<PlaneFft<double>> make_plane_fft<double>(const Backend&, const Layout&);
template std::unique_ptr<PlaneFft<float>> make_plane_fft<float>(const Backend&, const Layout&);

}  // namespace bouss
