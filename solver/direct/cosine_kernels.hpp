// Pointwise pieces of the direct solve's plane transforms on a box with a walled horizontal
// axis (solver/direct/plane_cosine.hpp): the real-to-real transform of a plane along x and y
// (FFTW's halfcomplex DFT, R2HC, along a periodic axis; the cosine transform DCT-II, REDFT10,
// along a walled one) made from one two-dimensional real-to-complex FFT of the plane
// reordered along its walled axes (Makhoul 1980, in two dimensions).
//
// Along one axis of n cells, the walled line x reordered (v_m = x_{2m} for the first
// ceil(n/2) m, v_{n-1-m} = x_{2m+1}) has the FFT V, and the line's DCT-II is
// Y_k = w_k V_k + conj(w_k) V_{n-k}, w_k = exp(-i pi k / (2n)); the map is complex-linear, so
// it applies along one axis of a plane whose other axis is already transformed. A value and
// its mirror along each axis (k and n - k) form an orbit of at most four modes; the plane
// FFT's half spectrum (x from 0 to nx/2) holds two complex values of each orbit (at (kx, ky)
// and (kx, ny - ky): the rest are their conjugates), and these four real numbers give the
// orbit's (at most) four real-to-real values, and back: a pass each way over the planes
// (solver/direct/plane_cosine.hpp), one thread an orbit, every plane at once.
#pragma once

#include <cmath>

#include "grid/config.hpp"
#include "solver/direct/complex.hpp"
#include "solver/direct/fourier_kernels.hpp"

namespace bouss {

// One axis of an orbit: its transform, the canonical index k (0 .. n/2) and the mirror
// (n - k) mod n; side 0 is k, side 1 the mirror.
struct AxisPair {
  AxisTransform t;
  int k, n;
  BOUSS_HD int at(int side) const { return side == 0 ? k : (n - k) % n; }
  // Whether the two sides are two modes (not k = 0, nor k = n/2 of an even n).
  BOUSS_HD bool distinct() const { return (n - k) % n != k; }
};

// The twiddle w_p = exp(-i pi p / (2n)) of index p on an axis of n cells.
template <class S>
inline Complex<S> cosine_twiddle(int p, int n) {
  constexpr double pi = 3.14159265358979323846264338327950;
  const double angle = pi * p / (2.0 * n);
  return {S(std::cos(angle)), S(-std::sin(angle))};
}

// The map of one orbit between the plane FFT's two complex values (a at (kx, ky), b at
// (kx, ny - ky) mod ny: both in the half spectrum, kx <= nx/2) and the real-to-real values at
// the orbit's positions y[sx][sy] (x index x.at(sx), y index y.at(sy)). A side that repeats the
// other (not distinct) holds no value of its own: forward leaves a copy there, inverse ignores
// it. Unnormalized as FFTW's are: inverse(forward) multiplies by axis_transform_scale along
// each axis, the plane FFT's inverse included.
template <class S>
struct OrbitMap {
  AxisPair x, y;
  Complex<S> wx[2], wy[2];  // the twiddles w at each side's index (walled axes)

  // tx, ty: each axis's twiddles by index (cosine_twiddle's, tabled once: computed here they
  // cost the orbit passes more than their memory traffic, on the GPU and far more on the CPU).
  BOUSS_HD OrbitMap(AxisPair ax, AxisPair ay, const Complex<S>* tx, const Complex<S>* ty) : x(ax), y(ay) {
    for (int s = 0; s < 2; ++s) {
      wx[s] = tx[x.at(s)];
      wy[s] = ty[y.at(s)];
    }
  }
  // Whether y[sx][sy] is a mode of its own.
  BOUSS_HD bool active(int sx, int sy) const { return (sx == 0 || x.distinct()) && (sy == 0 || y.distinct()); }

  BOUSS_HD void forward(Complex<S> a, Complex<S> b, S out[2][2]) const {
    Complex<S> v[2][2] = {{a, b}, {conj(b), conj(a)}};  // v[sx][sy]
    if (y.t == AxisTransform::walled)
      for (int sx = 0; sx < 2; ++sx) cosine_forward(y, wy, v[sx][0], v[sx][1]);
    if (x.t == AxisTransform::walled)
      for (int sy = 0; sy < 2; ++sy) cosine_forward(x, wx, v[0][sy], v[1][sy]);
    // Real values: along a periodic axis the halfcomplex pair (real part at k, imaginary at n - k).
    for (int sx = 0; sx < 2; ++sx)
      for (int sy = 0; sy < 2; ++sy) {
        if (x.t == AxisTransform::periodic) out[sx][sy] = sx == 0 ? v[0][sy].re : v[0][sy].im;
        else if (y.t == AxisTransform::periodic) out[sx][sy] = sy == 0 ? v[sx][0].re : v[sx][0].im;
        else out[sx][sy] = v[sx][sy].re;
      }
    if (!x.distinct())
      for (int sy = 0; sy < 2; ++sy) out[1][sy] = out[0][sy];
    if (!y.distinct())
      for (int sx = 0; sx < 2; ++sx) out[sx][1] = out[sx][0];
  }

  BOUSS_HD void inverse(const S in[2][2], Complex<S>& a, Complex<S>& b) const {
    Complex<S> v[2][2];
    // Complex values again: a periodic axis's halfcomplex pair, and its conjugate mirror.
    const bool dx = x.distinct(), dy = y.distinct();
    for (int sx = 0; sx < 2; ++sx)
      for (int sy = 0; sy < 2; ++sy) {
        if (x.t == AxisTransform::periodic) {
          const Complex<S> c{in[0][sy], dx ? in[1][sy] : S(0)};
          v[sx][sy] = sx == 0 ? c : conj(c);
        } else if (y.t == AxisTransform::periodic) {
          const Complex<S> c{in[sx][0], dy ? in[sx][1] : S(0)};
          v[sx][sy] = sy == 0 ? c : conj(c);
        } else {
          v[sx][sy] = Complex<S>{in[dx ? sx : 0][dy ? sy : 0], S(0)};
        }
      }
    if (y.t == AxisTransform::walled)
      for (int sx = 0; sx < 2; ++sx) cosine_inverse(y, wy, v[sx][0], v[sx][1]);
    if (x.t == AxisTransform::walled)
      for (int sy = 0; sy < 2; ++sy) cosine_inverse(x, wx, v[0][sy], v[1][sy]);
    a = v[0][0];
    b = v[0][1];
  }

 private:
  // Along a walled axis, the FFT's pair (u0 at side 0, u1 at its mirror) to the DCT-II's:
  // Y_s = w_s u_s + conj(w_s) u_{1-s}.
  BOUSS_HD static void cosine_forward(const AxisPair& p, const Complex<S> w[2], Complex<S>& u0, Complex<S>& u1) {
    const Complex<S> y0 = w[0] * u0 + conj(w[0]) * u1;
    u1 = p.distinct() ? w[1] * u1 + conj(w[1]) * u0 : y0;
    u0 = y0;
  }
  // Its inverse, times 2 (DCT-III's scale): u_s = conj(w_s) (Y_s - i Y_{1-s}), where a side
  // that repeats the other reads Y_n = 0 (k = 0) or itself (k = n/2).
  BOUSS_HD static void cosine_inverse(const AxisPair& p, const Complex<S> w[2], Complex<S>& y0, Complex<S>& y1) {
    if (!p.distinct()) {
      const Complex<S> other = p.k == 0 ? Complex<S>{S(0), S(0)} : y0;
      y0 = conj(w[0]) * (y0 - times_i(other));
      y1 = y0;
      return;
    }
    const Complex<S> u0 = conj(w[0]) * (y0 - times_i(y1));
    y1 = conj(w[1]) * (y1 - times_i(y0));
    y0 = u0;
  }
};

}  // namespace bouss
