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
      case Cluster::bottom: f = 1 + std::tanh(beta * (s - 1)) / t; break;
      case Cluster::top: f = std::tanh(beta * s) / t; break;
    }
    z[std::size_t(k)] = lo + length * f;
  }
  z.front() = lo;
  z.back() = lo + length;
  return z;
}

StretchRatio largest_stretch_ratio(const std::vector<double>& faces) {
  StretchRatio r;
  for (std::size_t k = 0; k + 2 < faces.size(); ++k) {
    const double a = faces[k + 1] - faces[k], b = faces[k + 2] - faces[k + 1];
    const double q = std::max(a / b, b / a);
    if (q > r.ratio) r = {q, int(k)};
  }
  return r;
}

}  // namespace bouss
