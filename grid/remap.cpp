#include "grid/remap.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace bouss {

std::vector<double> RemapAxis::centres() const {
  std::vector<double> c(std::size_t(std::max(cells(), 0)));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.5 * (faces[i] + faces[i + 1]);
  return c;
}

namespace {

// Applies a 1D operation along `axis` of a 3D array of extents n, into extents m (m[axis]
// the new length; the others n's): line(in, stride_in, out, stride_out) per line.
template <class Line>
std::vector<double> along(const std::vector<double>& v, std::array<int, 3> n, int axis, int new_length, Line line) {
  std::array<int, 3> m = n;
  m[axis] = new_length;
  std::vector<double> out(std::size_t(m[0]) * m[1] * m[2]);
  const std::size_t stride_in = axis == 0 ? 1 : axis == 1 ? std::size_t(n[0]) : std::size_t(n[0]) * n[1];
  const std::size_t stride_out = axis == 0 ? 1 : axis == 1 ? std::size_t(m[0]) : std::size_t(m[0]) * m[1];
  const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;  // the two other axes
  for (int q = 0; q < n[a2]; ++q)
    for (int p = 0; p < n[a1]; ++p) {
      std::array<int, 3> at{0, 0, 0};
      at[a1] = p;
      at[a2] = q;
      const std::size_t in0 = std::size_t(at[0]) + std::size_t(n[0]) * (std::size_t(at[1]) + std::size_t(n[1]) * at[2]);
      const std::size_t out0 = std::size_t(at[0]) + std::size_t(m[0]) * (std::size_t(at[1]) + std::size_t(m[1]) * at[2]);
      line(v.data() + in0, stride_in, out.data() + out0, stride_out);
    }
  return out;
}

// The 1D conservative remap of one line of cell averages.
void remap_line(const double* in, std::size_t si, double* out, std::size_t so, const RemapAxis& from,
                const RemapAxis& to, const std::vector<double>& centres) {
  const int n = from.cells(), m = to.cells();
  const double period = from.faces.back() - from.faces.front();
  auto value = [&](int i) { return in[std::size_t(i) * si]; };
  auto slope = [&](int i) {
    if (n < 2) return 0.0;
    if (from.periodic) {
      const int lo = (i + n - 1) % n, hi = (i + 1) % n;
      const double xl = centres[std::size_t(lo)] - (lo > i ? period : 0), xh = centres[std::size_t(hi)] + (hi < i ? period : 0);
      return (value(hi) - value(lo)) / (xh - xl);
    }
    const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
    return (value(hi) - value(lo)) / (centres[std::size_t(hi)] - centres[std::size_t(lo)]);
  };
  int i = 0;
  for (int j = 0; j < m; ++j) {
    const double a = to.faces[std::size_t(j)], b = to.faces[std::size_t(j) + 1];
    while (i < n - 1 && from.faces[std::size_t(i) + 1] <= a) ++i;
    double sum = 0;
    for (int k = i; k < n && from.faces[std::size_t(k)] < b; ++k) {
      const double lo = std::max(a, from.faces[std::size_t(k)]), hi = std::min(b, from.faces[std::size_t(k) + 1]);
      if (hi <= lo) continue;
      sum += (hi - lo) * (value(k) + slope(k) * (0.5 * (lo + hi) - centres[std::size_t(k)]));
    }
    out[std::size_t(j) * so] = sum / (b - a);
  }
}

// The 1D linear interpolation of one line of point values.
void interpolate_line(const double* in, std::size_t si, double* out, std::size_t so, const PointAxis& from,
                      const std::vector<double>& to) {
  const std::vector<double>& x = from.points;
  const int n = int(x.size());
  auto value = [&](int i) { return in[std::size_t(i) * si]; };
  for (std::size_t j = 0; j < to.size(); ++j) {
    double t = to[j];
    if (n == 1) {
      out[j * so] = value(0);
      continue;
    }
    if (from.period > 0) {  // into [x0, x0 + period)
      t = x[0] + std::fmod(std::fmod(t - x[0], from.period) + from.period, from.period);
      const int i = int(std::upper_bound(x.begin(), x.end(), t) - x.begin()) - 1;
      const int lo = i, hi = (i + 1) % n;
      const double xh = i + 1 < n ? x[std::size_t(hi)] : x[0] + from.period;
      const double w = (t - x[std::size_t(lo)]) / (xh - x[std::size_t(lo)]);
      out[j * so] = (1 - w) * value(lo) + w * value(hi);
      continue;
    }
    int i = int(std::upper_bound(x.begin(), x.end(), t) - x.begin()) - 1;
    i = std::clamp(i, 0, n - 2);  // beyond the ends: the nearest two
    const double w = (t - x[std::size_t(i)]) / (x[std::size_t(i) + 1] - x[std::size_t(i)]);
    out[j * so] = (1 - w) * value(i) + w * value(i + 1);
  }
}

}  // namespace

std::vector<double> remap_cells(const std::vector<double>& values, const std::array<RemapAxis, 3>& from,
                                const std::array<RemapAxis, 3>& to) {
  std::array<int, 3> n{from[0].cells(), from[1].cells(), from[2].cells()};
  if (values.size() != std::size_t(n[0]) * n[1] * n[2]) throw std::invalid_argument("remap_cells: not the grid's cells");
  std::vector<double> v = values;
  for (int a = 0; a < 3; ++a) {
    if (to[a].faces == from[a].faces) continue;  // the same axis: the values themselves, to the bit
    const std::vector<double> centres = from[a].centres();
    v = along(v, n, a, to[a].cells(), [&](const double* in, std::size_t si, double* out, std::size_t so) {
      remap_line(in, si, out, so, from[a], to[a], centres);
    });
    n[a] = to[a].cells();
  }
  return v;
}

std::vector<double> interpolate_points(const std::vector<double>& values, const std::array<PointAxis, 3>& from,
                                       const std::array<std::vector<double>, 3>& to) {
  std::array<int, 3> n{int(from[0].points.size()), int(from[1].points.size()), int(from[2].points.size())};
  if (values.size() != std::size_t(n[0]) * n[1] * n[2])
    throw std::invalid_argument("interpolate_points: not the grid's points");
  std::vector<double> v = values;
  for (int a = 0; a < 3; ++a) {
    if (to[a] == from[a].points) continue;  // the same points: the values themselves, to the bit
    v = along(v, n, a, int(to[a].size()), [&](const double* in, std::size_t si, double* out, std::size_t so) {
      interpolate_line(in, si, out, so, from[a], to[a]);
    });
    n[a] = int(to[a].size());
  }
  return v;
}

}  // namespace bouss
