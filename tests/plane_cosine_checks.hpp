// The real-to-real plane transforms the direct solve is built on (solver/direct/plane_cosine.hpp:
// the plane FFTs of cuFFT or FFTW, Makhoul's reorder and the orbit maps) equal FFTW's own r2r
// plans (REDFT10 and R2HC forward, REDFT01 and HC2R back) to round-off: every mix of periodic
// and walled axes with a wall (a periodic box is the plane FFT's alone), even and odd lengths, and a one-cell y (a 2D box). On the backend given
// (the CPU in the unit tests, the GPU in the gpu tests), against FFTW on the host.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "grid/field.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/plane_cosine.hpp"
#include "solver/direct/plane_fft.hpp"
#include "test_support.hpp"

namespace bouss {

template <class R>
void check_plane_cosine_equals_fftw(const Backend& be) {
  // Round-off: a few units of the precision over these short lines.
  const double close = sizeof(R) == sizeof(double) ? 1e-13 : 2e-6;
  using A = AxisTransform;
  for (const std::array<int, 3> n : {std::array<int, 3>{16, 12, 5}, std::array<int, 3>{15, 9, 4}, std::array<int, 3>{33, 1, 6}})
    for (const std::array<A, 2> kinds : {std::array<A, 2>{A::walled, A::walled}, std::array<A, 2>{A::walled, A::periodic},
                                         std::array<A, 2>{A::periodic, A::walled}}) {
      SCOPED_TRACE(testing::PrintToString(n) + (kinds[0] == A::walled ? " x walled" : " x periodic") +
                   (kinds[1] == A::walled ? ", y walled" : ", y periodic"));
      const Layout L = Layout::make(n, 1, sizeof(R));
      Field<R> f_cpu(Backend::cpu(), L, Stagger::centre, "f"), s_cpu(Backend::cpu(), L, Stagger::centre, "spectrum");
      Field<R> f_be(be, L, Stagger::centre, "f"), s_be(be, L, Stagger::centre, "spectrum");
      const std::vector<R> host = test::random_interior<R>(L, 5);
      f_cpu.from_host(host);
      f_be.from_host(host);
      const auto fftw = make_fftw_plane_r2r<R>(L, kinds);
      const auto cosine = std::make_unique<PlaneCosine<R>>(be, L, kinds);
      fftw->forward(f_cpu.data() + L.origin, s_cpu.data());
      cosine->forward(f_be.data() + L.origin, s_be.data());
      // Mode (i, j) of plane k in each spectrum (x fastest in both).
      const auto x_fastest = [&](int i, int j, int k) { return i + std::size_t(n[0]) * (j + std::size_t(n[1]) * k); };
      const std::vector<R> a = s_cpu.to_host(), b = s_be.to_host();
      double worst = 0, size = 0;
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i) {
            worst = std::max(worst, std::fabs(double(a[x_fastest(i, j, k)]) - double(b[x_fastest(i, j, k)])));
            size = std::max(size, std::fabs(double(a[x_fastest(i, j, k)])));
          }
      EXPECT_LT(worst, close * size) << "forward";
      // Back: each one's inverse of the same spectrum (FFTW's).
      s_be.from_host(a);
      fftw->inverse(s_cpu.data(), f_cpu.data() + L.origin);
      cosine->inverse(s_be.data(), f_be.data() + L.origin);
      const std::vector<R> x = f_cpu.to_host(), y = f_be.to_host();
      worst = size = 0;
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i) {
            const std::ptrdiff_t at = L.origin + L.index(i, j, k);
            worst = std::max(worst, std::fabs(double(x[at]) - double(y[at])));
            size = std::max(size, std::fabs(double(x[at])));
          }
      EXPECT_LT(worst, close * size) << "inverse";
    }
}

}  // namespace bouss
