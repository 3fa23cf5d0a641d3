// cuFFT's batched plane transforms for the CUDA backend (solver/direct/plane_fft.hpp); in a build
// without CUDA, make_cufft_plane_fft says so.
#include "solver/direct/plane_fft.hpp"

#include <utility>
#include <stdexcept>
#include <string>

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
class Cufft final : public PlaneFft<R> {
  static constexpr bool dbl = sizeof(R) == sizeof(double);

 public:
  Cufft(const Backend& backend, const Layout& L) : plans_(backend, planner(L)) {}
  // The forward and inverse plans of layout L's planes (solver/direct/cufft_plan_pair.hpp).
  static CufftPlanPair::Planner planner(const Layout& L) {
    return [L](cufftHandle fwd, cufftHandle inv) {
      // A one-cell y (a 2D box) plans its lines alone (rank 1).
      const int rank = L.n[1] == 1 ? 1 : 2;
      int n[2] = {L.n[1], L.n[0]};
      int real_embed[2] = {int(L.sz / L.sy), int(L.sy)}, spec_embed[2] = {L.n[1], L.n[0] / 2 + 1};
      int* const dims = rank == 1 ? n + 1 : n;
      int* const real_dims = rank == 1 ? real_embed + 1 : real_embed;
      int* const spec_dims = rank == 1 ? spec_embed + 1 : spec_embed;
      const int real_dist = int(L.sz), spec_dist = L.n[1] * (L.n[0] / 2 + 1);
      std::size_t fwd_bytes = 0, inv_bytes = 0;
      check(cufftMakePlanMany(fwd, rank, dims, real_dims, 1, real_dist, spec_dims, 1, spec_dist,
                              dbl ? CUFFT_D2Z : CUFFT_R2C, L.n[2], &fwd_bytes),
            "plan forward");
      check(cufftMakePlanMany(inv, rank, dims, spec_dims, 1, spec_dist, real_dims, 1, real_dist,
                              dbl ? CUFFT_Z2D : CUFFT_C2R, L.n[2], &inv_bytes),
            "plan inverse");
      return std::make_pair(fwd_bytes, inv_bytes);
    };
  }
  void forward(const R* in, Complex<R>* out) override {
    if constexpr (dbl)
      check(cufftExecD2Z(plans_.forward(), const_cast<double*>(in), reinterpret_cast<cufftDoubleComplex*>(out)), "forward");
    else
      check(cufftExecR2C(plans_.forward(), const_cast<float*>(in), reinterpret_cast<cufftComplex*>(out)), "forward");
  }
  void inverse(Complex<R>* in, R* out) override {
    if constexpr (dbl)
      check(cufftExecZ2D(plans_.inverse(), reinterpret_cast<cufftDoubleComplex*>(in), out), "inverse");
    else
      check(cufftExecC2R(plans_.inverse(), reinterpret_cast<cufftComplex*>(in), out), "inverse");
  }

 private:
  CufftPlanPair plans_;
};

}  // namespace

template <class R>
std::unique_ptr<PlaneFft<R>> make_cufft_plane_fft(const Backend& backend, const Layout& layout) {
  return std::make_unique<Cufft<R>>(backend, layout);
}

template <class R>
std::size_t cufft_plane_work_bytes(const Layout& layout) {
  return CufftPlanPair::work_bytes(Cufft<R>::planner(layout));
}
#else
template <class R>
std::unique_ptr<PlaneFft<R>> make_cufft_plane_fft(const Backend&, const Layout&) {
  throw std::logic_error("cuFFT plane transforms: this build has no CUDA");
}
template <class R>
std::size_t cufft_plane_work_bytes(const Layout&) {
  return 0;
}
#endif

template std::unique_ptr<PlaneFft<double>> make_cufft_plane_fft<double>(const Backend&, const Layout&);
template std::unique_ptr<PlaneFft<float>> make_cufft_plane_fft<float>(const Backend&, const Layout&);
template std::size_t cufft_plane_work_bytes<double>(const Layout&);
template std::size_t cufft_plane_work_bytes<float>(const Layout&);

}  // namespace bouss
