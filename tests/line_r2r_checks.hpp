// The real-to-real line transforms of the direct solve's pencils (solver/direct/line_r2r.hpp:
// a line FFT and the orbit map along one axis, or an eigenbasis's product) equal the sums that
// define them, to round-off: FFTW's halfcomplex DFT (R2HC) along a periodic axis, the
// DCT-II (REDFT10) along a walled one, the eigenbasis's forward matrix along a stretched one;
// and inverse(forward(x)) = axis_transform_scale x (the eigenbases': x). Even and odd lengths,
// contiguous lines (x lines, with room between them) and interleaved ones (a band's y
// lines). On the backend given (the CPU in the unit tests, the GPU in the gpu tests).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "grid/stretching.hpp"
#include "solver/direct/axis_eigenbasis.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/line_r2r.hpp"

namespace bouss {

template <class R>
void check_line_r2r_equals_its_sums(const Backend& be) {
  const double close = sizeof(R) == sizeof(double) ? 1e-13 : 2e-6;
  constexpr double pi = 3.14159265358979323846264338327950;
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const int n : {12, 9, 2})
    for (const int form : {0, 1, 2})  // 0 periodic, 1 walled, 2 an eigenbasis (stretched, walled)
      for (const bool contiguous : {true, false}) {
        const AxisTransform kind = form == 0 ? AxisTransform::periodic : AxisTransform::walled;
        SCOPED_TRACE("n " + std::to_string(n) + (form == 0 ? " periodic" : form == 1 ? " walled" : " eigenbasis") +
                     (contiguous ? " contiguous" : " interleaved"));
        const int lines = contiguous ? 5 : 7;
        const R2RLines L{n, lines, contiguous ? LineSpacing{1, n + 3} : LineSpacing{lines + 3, 1}};
        const auto at = [&](int l, int i) { return std::size_t(l) * L.spacing.dist + std::size_t(i) * L.spacing.stride; };
        const std::size_t size = at(lines - 1, n - 1) + 1;
        AxisEigenbasis basis;
        if (form == 2) basis = axis_eigenbasis(tanh_faces(n, 0.0, 1.0, 1.5, Cluster::both), kind);
        LineR2R<R> t(be, kind, L, form == 2 ? &basis : nullptr);
        EXPECT_EQ(t.reordered(), form == 1);
        // x: each line's values; the input laid out as the transform reads it (Makhoul's order).
        std::vector<double> x(std::size_t(lines) * n);
        for (double& v : x) v = value(random);
        std::vector<R> host(size, R(0));
        for (int l = 0; l < lines; ++l)
          for (int m = 0; m < n; ++m)
            host[at(l, m)] = R(x[std::size_t(l) * n + (t.reordered() ? cosine_reorder_source(m, n) : m)]);
        R* lines_be = static_cast<R*>(be.allocate(size * sizeof(R)));
        R* work = static_cast<R*>(be.allocate(t.work_values() * sizeof(R)));
        copy_bytes(lines_be, be, host.data(), Backend::cpu(), size * sizeof(R));
        t.forward(lines_be, work);
        std::vector<R> spectrum(size);
        copy_bytes(spectrum.data(), Backend::cpu(), lines_be, be, size * sizeof(R));
        double worst = 0, scale = 0;
        for (int l = 0; l < lines; ++l) {
          const double* xl = x.data() + std::size_t(l) * n;
          for (int k = 0; k < n; ++k) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
              if (form == 2) sum += basis.forward[std::size_t(k) + std::size_t(n) * j] * xl[j];
              else if (form == 1) sum += 2 * xl[j] * std::cos(pi * k * (2 * j + 1) / (2.0 * n));
              else if (k <= n / 2) sum += xl[j] * std::cos(2 * pi * double(j) * k / n);  // real part of X_k
              else sum -= xl[j] * std::sin(2 * pi * double(j) * (n - k) / n);           // imaginary part of X_(n-k)
            }
            worst = std::max(worst, std::fabs(double(spectrum[at(l, k)]) - sum));
            scale = std::max(scale, std::fabs(sum));
          }
        }
        EXPECT_LT(worst, close * scale) << "forward";
        t.inverse(lines_be, work);
        std::vector<R> back(size);
        copy_bytes(back.data(), Backend::cpu(), lines_be, be, size * sizeof(R));
        const double round_trip = form == 2 ? 1.0 : axis_transform_scale(kind, n);
        worst = scale = 0;
        for (int l = 0; l < lines; ++l)
          for (int i = 0; i < n; ++i) {
            const double got = double(back[at(l, t.reordered() ? cosine_reorder_target(i, n) : i)]) / round_trip;
            worst = std::max(worst, std::fabs(got - x[std::size_t(l) * n + i]));
            scale = std::max(scale, std::fabs(x[std::size_t(l) * n + i]));
          }
        EXPECT_LT(worst, close * scale) << "inverse";
        be.deallocate(lines_be);
        be.deallocate(work);
      }
}

}  // namespace bouss
