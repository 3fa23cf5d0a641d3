// FFTW's double and float APIs under one name each, and the lock its planner needs (it is
// not thread-safe: plans are made and destroyed one at a time), for the CPU backend's plane
// and line transforms (solver/direct/plane_fft_fftw.cpp, line_fft_fftw.cpp).
#pragma once

#include <fftw3.h>

#include <mutex>

namespace bouss {

inline std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

// Two distinct, aligned arrays to plan with: FFTW_ESTIMATE reads and writes neither, but takes
// equal pointers (null ones too) for an in-place transform, whose layout differs.
struct FftwPlanningArrays {
  void* real = fftw_malloc(64);
  void* spec = fftw_malloc(64);
  ~FftwPlanningArrays() {
    fftw_free(real);
    fftw_free(spec);
  }
  FftwPlanningArrays() = default;
  FftwPlanningArrays(const FftwPlanningArrays&) = delete;
  FftwPlanningArrays& operator=(const FftwPlanningArrays&) = delete;
};

template <class R>
struct Fftw;
template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Cx = fftw_complex;
  static constexpr auto plan_r2c = fftw_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftw_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftw_plan_many_dft;
  static constexpr auto exec_r2c = fftw_execute_dft_r2c;
  static constexpr auto exec_c2r = fftw_execute_dft_c2r;
  static constexpr auto exec_c2c = fftw_execute_dft;
  static constexpr auto destroy = fftw_destroy_plan;
  static constexpr auto plan_r2r = fftw_plan_many_r2r;
  static constexpr auto exec_r2r = fftw_execute_r2r;
};
template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Cx = fftwf_complex;
  static constexpr auto plan_r2c = fftwf_plan_many_dft_r2c;
  static constexpr auto plan_c2r = fftwf_plan_many_dft_c2r;
  static constexpr auto plan_c2c = fftwf_plan_many_dft;
  static constexpr auto exec_r2c = fftwf_execute_dft_r2c;
  static constexpr auto exec_c2r = fftwf_execute_dft_c2r;
  static constexpr auto exec_c2c = fftwf_execute_dft;
  static constexpr auto destroy = fftwf_destroy_plan;
  static constexpr auto plan_r2r = fftwf_plan_many_r2r;
  static constexpr auto exec_r2r = fftwf_execute_r2r;
};

}  // namespace bouss
