// Horizontally averaged profiles on any backend: computed into the backend's memory and read
// back, and the same profiles computed plainly on the host from the fields' values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "physics/flow.hpp"
#include "physics/profiles.hpp"
#include "test_support.hpp"

namespace bouss::test {

// horizontal_profiles_into into the backend's memory, copied back to the host (of T = the
// field + reference(z); the plain host profiles below are of the field itself).
inline std::vector<double> profiles_of(const Grid& g, const FlowFields<double>& f, const std::vector<std::string>& names,
                                       const ReferenceProfile& reference = {}) {
  const Backend& be = f.T.backend();
  const std::size_t count = profile_values(names, g.n()[2]);
  double* dst = static_cast<double*>(be.allocate(count * sizeof(double)));
  horizontal_profiles_into(g, f, reference, names, dst);
  std::vector<double> host(count);
  copy_bytes(host.data(), Backend::cpu(), dst, be, count * sizeof(double));
  be.deallocate(dst);
  return host;
}

// One profile computed plainly on the host: sums in k, j, i order, each cell weighted by its
// area (dx_i dy_j: a direct integration over the level on stretched x and y), T_rms about the
// mean from a second pass.
inline std::vector<double> host_profile(const Grid& g, const FlowFields<double>& f, const std::string& name) {
  const Layout& L = g.layout;
  const int nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const std::vector<double> u = f.u.to_host(), v = f.v.to_host(), w = f.w.to_host(), T = f.T.to_host();
  auto at = [&](const std::vector<double>& a, int i, int j, int k) { return a[L.origin + L.index(i, j, k)]; };
  const int levels = profile_on_faces(name) ? nz + 1 : nz;
  std::vector<double> out(levels);
  const auto area = [&](int i, int j) { return g.width(0, i) * g.width(1, j); };
  const double A = g.length(0) * g.length(1);
  for (int k = 0; k < levels; ++k) {
    double sum = 0, mean_T = 0;
    if (name == "T_rms") {
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) mean_T += at(T, i, j, k) * area(i, j);
      mean_T /= A;
    }
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        double term = 0;
        if (name == "T_mean") term = at(T, i, j, k);
        if (name == "T_rms") term = std::pow(at(T, i, j, k) - mean_T, 2);
        if (name == "u_rms") term = (std::pow(at(u, i, j, k), 2) + std::pow(at(u, i + 1, j, k), 2)) / 2;
        if (name == "v_rms") term = (std::pow(at(v, i, j, k), 2) + std::pow(at(v, i, j + 1, k), 2)) / 2;
        if (name == "w_rms") term = std::pow(at(w, i, j, k), 2);
        if (name == "wT_mean") term = at(w, i, j, k) * (at(T, i, j, k) + at(T, i, j, k - 1)) / 2;
        sum += term * area(i, j);
      }
    const double mean = sum / A;
    out[k] = name == "T_mean" || name == "wT_mean" ? mean : std::sqrt(mean);
  }
  return out;
}

// Sets every value of the flow, ghosts included, to random numbers: T about 2, the
// velocities of either sign.
inline void set_random_flow(FlowFields<double>& f, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int c = 0; c < 4; ++c) {
    std::vector<double> h(f[c].layout().size);
    for (double& x : h) x = (c == 3 ? 2.0 : 0.0) + U(rng);
    f[c].from_host(h);
  }
}

// Every profile, asked for in `names` order, equals the host's computation to round-off (the
// order of summation differs), relative to the profile's largest value.
inline void check_profiles_match_host(const Grid& g, const FlowFields<double>& f, const std::vector<std::string>& names,
                                      double tolerance) {
  const std::vector<double> got = profiles_of(g, f, names);
  ASSERT_EQ(got.size(), profile_values(names, g.n()[2]));
  std::size_t offset = 0;
  for (const std::string& name : names) {
    const std::vector<double> expected = host_profile(g, f, name);
    double scale = 0;
    for (double x : expected) scale = std::fmax(scale, std::fabs(x));
    for (std::size_t k = 0; k < expected.size(); ++k)
      EXPECT_NEAR(got[offset + k], expected[k], tolerance * scale) << name << " at level " << k;
    offset += expected.size();
  }
}

}  // namespace bouss::test
