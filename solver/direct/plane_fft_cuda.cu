// cuFFT's batched plane transforms for the CUDA backend (solver/direct/plane_fft.hpp); in a build
// without CUDA, make_cufft_plane_fft says so.
#include "solver/direct/plane_fft.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#if defined(BOUSS_HAVE_CUDA)
#include <cufft.h>

#include "solver/direct/cufft_check.hpp"
#endif

namespace bouss {

#if defined(BOUSS_HAVE_CUDA)
namespace {

constexpr auto check = cufft_check;

template <class R>
class Cufft final : public PlaneFft<R> {
  static constexpr bool dbl = sizeof(R) == sizeof(double);

 public:
  // The two plans share one work area (they never run at once), allocated through the
  // backend: cuFFT would give each its own, about a spectrum each.
  Cufft(const Backend& backend, const Layout& L) : backend_(backend) {
    const std::size_t work_bytes = make_plans(L, fwd_, inv_);
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
  // The forward and inverse plans of layout L's planes, without work areas; returns the
  // larger work area they need. On failure it leaves no plan behind.
  static std::size_t make_plans(const Layout& L, cufftHandle& fwd, cufftHandle& inv) {
    check(cufftCreate(&fwd), "create");
    if (const cufftResult e = cufftCreate(&inv); e != CUFFT_SUCCESS) {
      cufftDestroy(fwd);
      check(e, "create");
    }
    try {
      return plan_both(L, fwd, inv);
    } catch (...) {
      cufftDestroy(fwd);
      cufftDestroy(inv);
      throw;
    }
  }
  static std::size_t plan_both(const Layout& L, cufftHandle fwd, cufftHandle inv) {
    // A one-cell y (a 2D box) plans its lines alone (rank 1).
    const int rank = L.n[1] == 1 ? 1 : 2;
    int n[2] = {L.n[1], L.n[0]};
    int real_embed[2] = {int(L.sz / L.sy), int(L.sy)}, spec_embed[2] = {L.n[1], L.n[0] / 2 + 1};
    int* const dims = rank == 1 ? n + 1 : n;
    int* const real_dims = rank == 1 ? real_embed + 1 : real_embed;
    int* const spec_dims = rank == 1 ? spec_embed + 1 : spec_embed;
    const int real_dist = int(L.sz), spec_dist = L.n[1] * (L.n[0] / 2 + 1);
    check(cufftSetAutoAllocation(fwd, 0), "work area");
    check(cufftSetAutoAllocation(inv, 0), "work area");
    std::size_t fwd_bytes = 0, inv_bytes = 0;
    check(cufftMakePlanMany(fwd, rank, dims, real_dims, 1, real_dist, spec_dims, 1, spec_dist,
                            dbl ? CUFFT_D2Z : CUFFT_R2C, L.n[2], &fwd_bytes),
          "plan forward");
    check(cufftMakePlanMany(inv, rank, dims, spec_dims, 1, spec_dist, real_dims, 1, real_dist,
                            dbl ? CUFFT_Z2D : CUFFT_C2R, L.n[2], &inv_bytes),
          "plan inverse");
    return std::max(fwd_bytes, inv_bytes);
  }
  ~Cufft() override { release(); }
  void forward(const R* in, Complex<R>* out) override {
    if constexpr (dbl)
      check(cufftExecD2Z(fwd_, const_cast<double*>(in), reinterpret_cast<cufftDoubleComplex*>(out)), "forward");
    else
      check(cufftExecR2C(fwd_, const_cast<float*>(in), reinterpret_cast<cufftComplex*>(out)), "forward");
  }
  void inverse(Complex<R>* in, R* out) override {
    if constexpr (dbl)
      check(cufftExecZ2D(inv_, reinterpret_cast<cufftDoubleComplex*>(in), out), "inverse");
    else
      check(cufftExecC2R(inv_, reinterpret_cast<cufftComplex*>(in), out), "inverse");
  }

 private:
  void release() {
    cufftDestroy(fwd_);
    cufftDestroy(inv_);
    if (work_) backend_.deallocate(work_);
  }

  Backend backend_;
  cufftHandle fwd_ = 0, inv_ = 0;
  void* work_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<PlaneFft<R>> make_cufft_plane_fft(const Backend& backend, const Layout& layout) {
  return std::make_unique<Cufft<R>>(backend, layout);
}

template <class R>
std::size_t cufft_plane_work_bytes(const Layout& layout) {
  cufftHandle fwd = 0, inv = 0;
  const std::size_t bytes = Cufft<R>::make_plans(layout, fwd, inv);
  cufftDestroy(fwd);
  cufftDestroy(inv);
  return bytes;
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
