#include "grid/stretching.hpp"

#include <algorithm>
#include <cmath>

namespace bouss {

std::vector<double> tanh_faces(int n, double lo, double length, double beta, Cluster cluster) {
  std::vector<double> z(std::size_t(n) + 1);
  const double t = std::tanh(beta);
  for (int k = 0; k <= n; ++k) {
    const double s = double(k) / n;
    double f = s;
    switch (cluster) {
      case Cluster::both: f = 0.5 * (1 + std::tanh(beta * (2 * s - 1)) / t); break;
      case Cluster::low: f = 1 + std::tanh(beta * (s - 1)) / t; break;
      case Cluster::high: f = std::tanh(beta * s) / t; break;
    }
    z[std::size_t(k)] = lo + length * f;
  }
  z.front() = lo;
  z.back() = lo + length;
  return z;
}

StretchRatio largest_stretch_ratio(const std::vector<double>& faces, bool periodic) {
  StretchRatio r;
  const std::size_t n = faces.size() - 1;  // cells
  const auto width = [&](std::size_t k) { return faces[k + 1] - faces[k]; };
  for (std::size_t k = 0; k + 1 < n + (periodic && n > 1 ? 1 : 0); ++k) {
    const double a = width(k), b = width((k + 1) % n);
    const double q = std::max(a / b, b / a);
    if (q > r.ratio) r = {q, int(k)};
  }
  return r;
}

}  // namespace bouss
