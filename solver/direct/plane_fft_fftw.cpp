// FFTW's batched plane transforms for the CPU backend (solver/direct/plane_fft.hpp).
#include <mutex>
#include <stdexcept>

#include "solver/direct/fftw_api.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/plane_fft.hpp"

namespace bouss {
namespace {

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

template <class R>
class FftwPlanes final : public PlaneFft<R> {
  using F = Fftw<R>;

 public:
  explicit FftwPlanes(const Layout& L) {
    Geometry g(L);
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    const FftwPlanningArrays a;
    R* real = static_cast<R*>(a.real);
    auto* spec = static_cast<typename F::Cx*>(a.spec);
    // FFTW_ESTIMATE plans without touching arrays; FFTW_UNALIGNED lets the new-array execute
    // functions take any field.
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    fwd_ = F::plan_r2c(2, g.n, g.planes, real, g.real_embed, 1, g.real_dist, spec, g.spec_embed, 1, g.spec_dist, flags);
    inv_ = F::plan_c2r(2, g.n, g.planes, spec, g.spec_embed, 1, g.spec_dist, real, g.real_embed, 1, g.real_dist, flags);
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW: could not plan the plane transforms");
  }
  ~FftwPlanes() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    F::destroy(fwd_);
    F::destroy(inv_);
  }
  void forward(const R* in, Complex<R>* out) override {
    F::exec_r2c(fwd_, const_cast<R*>(in), reinterpret_cast<typename F::Cx*>(out));
  }
  void inverse(Complex<R>* in, R* out) override { F::exec_c2r(inv_, reinterpret_cast<typename F::Cx*>(in), out); }

 private:
  typename F::Plan fwd_ = nullptr, inv_ = nullptr;
};

// The real-to-real transforms of a box with a walled horizontal axis (PlaneR2R): one
// two-dimensional r2r plan each way, its kind per axis (R2HC / HC2R along a periodic one,
// REDFT10 / REDFT01 along a walled one), from the padded interior to the contiguous spectrum.
template <class R>
class FftwR2R final : public PlaneR2R<R> {
  using F = Fftw<R>;

 public:
  FftwR2R(const Layout& L, const std::array<AxisTransform, 2>& kinds) {
    int n[2] = {L.n[1], L.n[0]}, real_embed[2] = {int(L.sz / L.sy), int(L.sy)}, spec_embed[2] = {L.n[1], L.n[0]};
    const auto kind = [&](int axis, bool forward) {
      return kinds[axis] == AxisTransform::walled ? (forward ? FFTW_REDFT10 : FFTW_REDFT01)
                                                  : (forward ? FFTW_R2HC : FFTW_HC2R);
    };
    const fftw_r2r_kind fwd_kinds[2] = {kind(1, true), kind(0, true)}, inv_kinds[2] = {kind(1, false), kind(0, false)};
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    const FftwPlanningArrays a;
    R* real = static_cast<R*>(a.real);
    R* spec = static_cast<R*>(a.spec);
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    fwd_ = F::plan_r2r(2, n, L.n[2], real, real_embed, 1, int(L.sz), spec, spec_embed, 1, L.n[0] * L.n[1], fwd_kinds,
                       flags);
    inv_ = F::plan_r2r(2, n, L.n[2], spec, spec_embed, 1, L.n[0] * L.n[1], real, real_embed, 1, int(L.sz), inv_kinds,
                       flags);
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW: could not plan the plane cosine transforms");
  }
  ~FftwR2R() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    F::destroy(fwd_);
    F::destroy(inv_);
  }
  void forward(const R* in, R* out) override { F::exec_r2r(fwd_, const_cast<R*>(in), out); }
  void inverse(R* in, R* out) override { F::exec_r2r(inv_, in, out); }

 private:
  typename F::Plan fwd_ = nullptr, inv_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<PlaneR2R<R>> make_fftw_plane_r2r(const Layout& L, const std::array<AxisTransform, 2>& kinds) {
  return std::make_unique<FftwR2R<R>>(L, kinds);
}
template std::unique_ptr<PlaneR2R<double>> make_fftw_plane_r2r<double>(const Layout&, const std::array<AxisTransform, 2>&);
template std::unique_ptr<PlaneR2R<float>> make_fftw_plane_r2r<float>(const Layout&, const std::array<AxisTransform, 2>&);

template <class R>
std::unique_ptr<PlaneFft<R>> make_fftw_plane_fft(const Layout& L) {
  return std::make_unique<FftwPlanes<R>>(L);
}
template std::unique_ptr<PlaneFft<double>> make_fftw_plane_fft<double>(const Layout&);
template std::unique_ptr<PlaneFft<float>> make_fftw_plane_fft<float>(const Layout&);

template <class R>
std::unique_ptr<PlaneFft<R>> make_plane_fft(const Backend& backend, const Layout& layout) {
  if (backend.is_cuda()) return make_cufft_plane_fft<R>(backend, layout);
  return make_fftw_plane_fft<R>(layout);
}
template std::unique_ptr<PlaneFft<double>> make_plane_fft<double>(const Backend&, const Layout&);
template std::unique_ptr<PlaneFft<float>> make_plane_fft<float>(const Backend&, const Layout&);

template <class R>
std::size_t plane_fft_work_bytes(const Backend& backend, const Layout& layout) {
  return backend.is_cuda() ? cufft_plane_work_bytes<R>(layout) : 0;
}
template std::size_t plane_fft_work_bytes<double>(const Backend&, const Layout&);
template std::size_t plane_fft_work_bytes<float>(const Backend&, const Layout&);

}  // namespace bouss
