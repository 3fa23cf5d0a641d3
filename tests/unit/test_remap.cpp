// Fields carried from one grid onto another (grid/remap.hpp): cell averages conservatively
// and to second order, point values linearly to second order, the same grid to the bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "grid/remap.hpp"

namespace bouss {
namespace {

RemapAxis uniform(int n, double lo, double hi, bool periodic) {
  RemapAxis a;
  a.periodic = periodic;
  for (int i = 0; i <= n; ++i) a.faces.push_back(lo + (hi - lo) * i / n);
  return a;
}

// tanh-clustered towards both ends, as a stretched z.
RemapAxis stretched(int n, double lo, double hi) {
  RemapAxis a;
  for (int i = 0; i <= n; ++i) {
    const double s = double(i) / n;
    a.faces.push_back(lo + (hi - lo) * 0.5 * (1 + std::tanh(2.0 * (2 * s - 1)) / std::tanh(2.0)));
  }
  return a;
}

std::size_t at(const std::array<int, 3>& n, int i, int j, int k) {
  return std::size_t(i) + std::size_t(n[0]) * (std::size_t(j) + std::size_t(n[1]) * k);
}

// Exact cell averages of f = sin(2 pi x / 2) cos(2 pi y) exp(z) on [0,2] x [0,1] x [0,1].
std::vector<double> exact_averages(const std::array<RemapAxis, 3>& g) {
  const double kx = M_PI, ky = 2 * M_PI;
  std::vector<double> v;
  for (int k = 0; k < g[2].cells(); ++k)
    for (int j = 0; j < g[1].cells(); ++j)
      for (int i = 0; i < g[0].cells(); ++i) {
        const double x0 = g[0].faces[i], x1 = g[0].faces[i + 1], y0 = g[1].faces[j], y1 = g[1].faces[j + 1];
        const double z0 = g[2].faces[k], z1 = g[2].faces[k + 1];
        const double fx = (std::cos(kx * x0) - std::cos(kx * x1)) / (kx * (x1 - x0));
        const double fy = (std::sin(ky * y1) - std::sin(ky * y0)) / (ky * (y1 - y0));
        const double fz = (std::exp(z1) - std::exp(z0)) / (z1 - z0);
        v.push_back(fx * fy * fz);
      }
  return v;
}

std::array<RemapAxis, 3> box(int nx, int ny, int nz, bool stretch_z) {
  return {uniform(nx, 0, 2, true), uniform(ny, 0, 1, true), stretch_z ? stretched(nz, 0, 1) : uniform(nz, 0, 1, false)};
}

double max_error(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

TEST(Remap, CellsOfAnIntegerRefinementAverageToTheOldCell) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(-1, 2);
  for (const bool stretch : {false, true}) {
    const auto from = box(5, 3, 4, stretch);
    std::vector<double> v(5 * 3 * 4);
    for (double& x : v) x = U(rng);
    // Each axis refined by 2 or 3 (z's faces split evenly within each old cell).
    std::array<RemapAxis, 3> to = from;
    const std::array<int, 3> r{2, 3, 2};
    for (int a = 0; a < 3; ++a) {
      to[a].faces.clear();
      for (int i = 0; i < from[a].cells(); ++i)
        for (int s = 0; s < r[a]; ++s)
          to[a].faces.push_back(from[a].faces[i] + (from[a].faces[i + 1] - from[a].faces[i]) * s / r[a]);
      to[a].faces.push_back(from[a].faces.back());
    }
    const std::vector<double> fine = remap_cells(v, from, to);
    const std::array<int, 3> n{5, 3, 4}, m{10, 9, 8};
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          double sum = 0, volume = 0;
          for (int c = 0; c < r[2]; ++c)
            for (int b = 0; b < r[1]; ++b)
              for (int a = 0; a < r[0]; ++a) {
                const int I = r[0] * i + a, J = r[1] * j + b, K = r[2] * k + c;
                const double dv = (to[0].faces[I + 1] - to[0].faces[I]) * (to[1].faces[J + 1] - to[1].faces[J]) *
                                  (to[2].faces[K + 1] - to[2].faces[K]);
                sum += fine[at(m, I, J, K)] * dv;
                volume += dv;
              }
          ASSERT_NEAR(sum / volume, v[at(n, i, j, k)], 1e-14) << i << " " << j << " " << k << (stretch ? " stretched" : "");
        }
  }
}

TEST(Remap, CellAveragesAreSecondOrderAndTheIntegralIsKept) {
  for (const bool stretch : {false, true}) {
    double previous = 0;
    for (int n : {12, 24, 48}) {
      const auto from = box(n, n / 2, n / 2, stretch), to = box(n * 17 / 12, n * 7 / 12, n * 5 / 12, !stretch);
      const std::vector<double> v = exact_averages(from), w = remap_cells(v, from, to);
      const double e = max_error(w, exact_averages(to));
      if (previous > 0) EXPECT_GT(previous / e, 3.3) << "n " << n << (stretch ? " from stretched" : "");
      previous = e;
      // The integral over the box, to round-off.
      auto integral = [](const std::vector<double>& f, const std::array<RemapAxis, 3>& g) {
        double s = 0;
        std::size_t p = 0;
        for (int k = 0; k < g[2].cells(); ++k)
          for (int j = 0; j < g[1].cells(); ++j)
            for (int i = 0; i < g[0].cells(); ++i, ++p)
              s += f[p] * (g[0].faces[i + 1] - g[0].faces[i]) * (g[1].faces[j + 1] - g[1].faces[j]) *
                   (g[2].faces[k + 1] - g[2].faces[k]);
        return s;
      };
      EXPECT_NEAR(integral(w, to), integral(v, from), 1e-13);
    }
  }
}

TEST(Remap, PointValuesAreSecondOrderExactWhenLinearAndWrapWherePeriodic) {
  auto f = [](double x, double y, double z) { return std::sin(M_PI * x) * std::cos(2 * M_PI * y) * std::exp(z); };
  auto points = [](int n, double lo, double hi, bool centres) {
    std::vector<double> p;
    for (int i = 0; i < n; ++i) p.push_back(lo + (hi - lo) * (i + (centres ? 0.5 : 0.0)) / n);
    return p;
  };
  double previous = 0;
  for (int n : {24, 48, 96}) {  // each axis to 17/12 of its points: the same alignment at each n
    // u's points: x faces of one period (periodic), y and z cell centres (z walled).
    const std::array<PointAxis, 3> from{PointAxis{points(n, 0, 2, false), 2.0}, PointAxis{points(n / 2, 0, 1, true), 1.0},
                                        PointAxis{points(n / 2, 0, 1, true), 0}};
    const int m = n * 17 / 12, h = n / 2 * 17 / 12;
    const std::array<std::vector<double>, 3> to{points(m, 0, 2, false), points(h, 0, 1, true), points(h, 0, 1, true)};
    std::vector<double> v, exact;
    for (double z : from[2].points)
      for (double y : from[1].points)
        for (double x : from[0].points) v.push_back(f(x, y, z));
    for (double z : to[2])
      for (double y : to[1])
        for (double x : to[0]) exact.push_back(f(x, y, z));
    const double e = max_error(interpolate_points(v, from, to), exact);
    if (previous > 0) EXPECT_GT(previous / e, 3.3) << "n " << n;
    previous = e;
  }
  // A linear field, extrapolated beyond the outermost centres of a walled axis: exact.
  const std::array<PointAxis, 3> from{PointAxis{{0.25, 0.75}, 0}, PointAxis{{0.5}, 1.0}, PointAxis{{0.1, 0.3, 0.9}, 0}};
  const std::array<std::vector<double>, 3> to{std::vector<double>{0.0, 0.1, 0.6, 1.0}, std::vector<double>{0.2, 0.7},
                                              std::vector<double>{0.0, 0.5, 1.0}};
  std::vector<double> v, exact;
  for (double z : from[2].points)
    for (double y : from[1].points)
      for (double x : from[0].points) v.push_back(1 + 2 * x - 3 * z);
  for (double z : to[2])
    for (int j = 0; j < 2; ++j)
      for (double x : to[0]) exact.push_back(1 + 2 * x - 3 * z);
  EXPECT_LT(max_error(interpolate_points(v, from, to), exact), 1e-14);
}

TEST(Remap, TheSameGridGivesTheValuesToTheBit) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> U(-1, 1);
  const auto g = box(6, 4, 5, true);
  std::vector<double> v(6 * 4 * 5);
  for (double& x : v) x = U(rng);
  EXPECT_EQ(remap_cells(v, g, g), v);
  std::array<PointAxis, 3> p;
  std::array<std::vector<double>, 3> q;
  for (int a = 0; a < 3; ++a) q[a] = p[a].points = g[a].centres();
  EXPECT_EQ(interpolate_points(v, p, q), v);
}

}  // namespace
}  // namespace bouss
