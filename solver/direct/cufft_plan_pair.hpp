// A forward and an inverse cuFFT plan of one shape (CUDA builds only): the direct solve's
// plane transforms (plane_fft_cuda.cu) and line transforms (line_fft_cuda.cu). The two
// share one work area (they never run at once), allocated through the backend (cuFFT would
// give each its own, about a spectrum each), and run on the backend's stream.
#pragma once

#include <cufft.h>

#include <algorithm>
#include <functional>

#include "grid/backend.hpp"
#include "solver/direct/cufft_check.hpp"

namespace bouss {

class CufftPlanPair {
 public:
  // Makes both plans on the handles given (their work areas not allocated) and returns the
  // bytes each one's work area needs, forward's then inverse's.
  using Planner = std::function<std::pair<std::size_t, std::size_t>(cufftHandle forward, cufftHandle inverse)>;

  CufftPlanPair(const Backend& backend, const Planner& plan) : backend_(backend) {
    const std::size_t bytes = make(plan, fwd_, inv_);
    try {
      if (bytes) work_ = backend_.allocate(bytes);
      cufft_check(cufftSetWorkArea(fwd_, work_), "work area");
      cufft_check(cufftSetWorkArea(inv_, work_), "work area");
      const auto stream = static_cast<cudaStream_t>(backend.stream());
      cufft_check(cufftSetStream(fwd_, stream), "set stream");
      cufft_check(cufftSetStream(inv_, stream), "set stream");
    } catch (...) {
      release();
      throw;
    }
  }
  ~CufftPlanPair() { release(); }
  CufftPlanPair(const CufftPlanPair&) = delete;
  CufftPlanPair& operator=(const CufftPlanPair&) = delete;

  cufftHandle forward() const { return fwd_; }
  cufftHandle inverse() const { return inv_; }

  // The work area the pair would allocate, without keeping the plans (the memory estimate's).
  static std::size_t work_bytes(const Planner& plan) {
    cufftHandle fwd = 0, inv = 0;
    const std::size_t bytes = make(plan, fwd, inv);
    cufftDestroy(fwd);
    cufftDestroy(inv);
    return bytes;
  }

 private:
  // Both plans without work areas; the larger work area they need. On failure no plan is left.
  static std::size_t make(const Planner& plan, cufftHandle& fwd, cufftHandle& inv) {
    cufft_check(cufftCreate(&fwd), "create");
    if (const cufftResult e = cufftCreate(&inv); e != CUFFT_SUCCESS) {
      cufftDestroy(fwd);
      cufft_check(e, "create");
    }
    try {
      cufft_check(cufftSetAutoAllocation(fwd, 0), "work area");
      cufft_check(cufftSetAutoAllocation(inv, 0), "work area");
      const auto [fwd_bytes, inv_bytes] = plan(fwd, inv);
      return std::max(fwd_bytes, inv_bytes);
    } catch (...) {
      cufftDestroy(fwd);
      cufftDestroy(inv);
      throw;
    }
  }
  void release() {
    cufftDestroy(fwd_);
    cufftDestroy(inv_);
    if (work_) backend_.deallocate(work_);
  }

  Backend backend_;
  cufftHandle fwd_ = 0, inv_ = 0;
  void* work_ = nullptr;
};

}  // namespace bouss
