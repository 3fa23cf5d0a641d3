// Horizontally averaged profiles (physics/profiles.hpp): the closed forms of known fields,
// a plain host computation of any state, and the volume Nusselt number as the vertical mean
// of the heat-flux profile of a convecting run.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile_checks.hpp"
#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/stretching.hpp"
#include "model/flow_simulation.hpp"
#include "solver/volume_mean.hpp"

using namespace bouss;
using namespace bouss::test;

namespace {
const double pi = std::acos(-1.0);

// The profile `name` out of the values of all of profile_names(), in that order.
std::vector<double> slice(const std::vector<double>& all, const std::string& name, int nz) {
  std::size_t offset = 0;
  for (const std::string& n : profile_names()) {
    const std::size_t count = profile_values({n}, nz);
    if (n == name) return std::vector<double>(all.begin() + offset, all.begin() + offset + count);
    offset += count;
  }
  return {};
}
}  // namespace

TEST(Profiles, NamesLevelsAndSizes) {
  EXPECT_EQ(profile_names(), (std::vector<std::string>{"T_mean", "T_rms", "u_rms", "v_rms", "w_rms", "wT_mean"}));
  for (const std::string& n : profile_names())
    EXPECT_EQ(profile_on_faces(n), n == "w_rms" || n == "wT_mean") << n;
  EXPECT_EQ(profile_values(profile_names(), 10), 6u * 10 + 2);
  EXPECT_EQ(profile_values({"wT_mean", "T_mean"}, 7), 15u);
  EXPECT_EQ(profile_values({}, 7), 0u);
  EXPECT_THROW(profile_on_faces("S_mean"), std::invalid_argument);
  EXPECT_THROW(profile_values({"T_mean", "T_rms", "T_mean"}, 4), std::invalid_argument);
  const Grid g = Grid::make({4, 4, 4}, {0, 0, 0}, {1, 1, 1});
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  double dst[8];
  EXPECT_THROW(horizontal_profiles_into(g, f, ReferenceProfile{}, {"u_mean"}, dst), std::invalid_argument);
}

// T = a(z) + b(z) cos(kx x) + c(z) cos(kx x) cos(ky y), u = U(z) sin(kx x), v = V(z) cos(ky y),
// w = W(z) cos(kx x) cos(ky y), periodic in x and y: the discrete means of the cosines over
// whole periods are exactly 0 and of their squares 1/2, so
//   T_mean = a, T_rms = sqrt(b^2/2 + c^2/4), u_rms = |U|/sqrt2, v_rms = |V|/sqrt2,
//   w_rms = |W|/2, wT_mean = W c/4 (c linear: its mean across the face is c at the face).
TEST(Profiles, MeansAndRmsOfPeriodicWavesAreTheirClosedForms) {
  const double Lx = 2.0, Ly = 1.5, kx = 2 * pi / Lx, ky = 2 * pi / Ly;
  const int nz = 6;
  const Grid g = Grid::make({16, 12, nz}, {0, 0, 0}, {Lx, Ly, 1.0});
  auto a = [](double z) { return 1 + 0.5 * z; };
  auto b = [](double z) { return 0.8 - 0.3 * z; };
  auto c = [](double z) { return 0.4 + 0.2 * z; };
  auto U = [](double z) { return 0.7 - z; };
  auto V = [](double z) { return 0.3 + z * z; };
  auto W = [](double z) { return 0.5 + z; };
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  set_field(f.T, g, [&](double x, double y, double z) {
    return a(z) + b(z) * std::cos(kx * x) + c(z) * std::cos(kx * x) * std::cos(ky * y);
  });
  set_field(f.u, g, [&](double x, double, double z) { return U(z) * std::sin(kx * x); });
  set_field(f.v, g, [&](double, double y, double z) { return V(z) * std::cos(ky * y); });
  set_field(f.w, g, [&](double x, double y, double z) { return W(z) * std::cos(kx * x) * std::cos(ky * y); });

  const std::vector<double> all = profiles_of(g, f, profile_names());
  ASSERT_EQ(all.size(), profile_values(profile_names(), nz));
  auto expect_profile = [&](const std::string& name, auto exact, double tolerance) {
    const std::vector<double> got = slice(all, name, nz);
    for (std::size_t k = 0; k < got.size(); ++k) {
      const double z = g.coordinate(profile_on_faces(name) ? Stagger::face_z : Stagger::centre, 2, int(k));
      EXPECT_NEAR(got[k], exact(z), tolerance * std::fabs(exact(z))) << name << " at level " << k << ", z = " << z;
    }
  };
  expect_profile("T_mean", a, 1e-14);
  expect_profile("T_rms", [&](double z) { return std::sqrt(b(z) * b(z) / 2 + c(z) * c(z) / 4); }, 1e-14);
  expect_profile("u_rms", [&](double z) { return std::fabs(U(z)) / std::sqrt(2.0); }, 1e-13);
  expect_profile("v_rms", [&](double z) { return std::fabs(V(z)) / std::sqrt(2.0); }, 1e-13);
  expect_profile("w_rms", [&](double z) { return std::fabs(W(z)) / 2; }, 1e-13);
  expect_profile("wT_mean", [&](double z) { return W(z) * c(z) / 4; }, 1e-13);
}

// A perturbation of 1e-7 on the conduction profile: T_rms keeps its digits. The unshifted
// <T^2> - <T>^2 would not: its round-off, about epsilon |T|^2, is a tenth of a variance of 1e-15.
TEST(Profiles, TemperatureRmsOfASmallPerturbationKeepsItsDigits) {
  const double kx = 2 * pi, ky = 2 * pi, amplitude = 1e-7;
  const Grid g = Grid::make({16, 16, 8}, {0, 0, 0}, {1.0, 1.0, 1.0});
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  for (int c = 0; c < 3; ++c) set_field(f[c], g, [](double, double, double) { return 0.0; });
  set_field(f.T, g, [&](double x, double y, double z) {
    return 1 - z + amplitude * (1 + z) * std::cos(kx * x) * std::cos(ky * y);
  });
  const std::vector<double> got = profiles_of(g, f, {"T_rms", "T_mean"});
  for (int k = 0; k < 8; ++k) {
    const double z = g.coordinate(Stagger::centre, 2, k);
    EXPECT_NEAR(got[k], amplitude * (1 + z) / 2, 1e-6 * amplitude) << "T_rms at level " << k;
    EXPECT_NEAR(got[8 + k], 1 - z, 1e-15) << "T_mean at level " << k;
  }
}

TEST(Profiles, EqualAPlainHostComputationOfAnyState) {
  const Grid g = Grid::make({7, 5, 4}, {0, 0, 0}, {1.4, 1.0, 0.8});
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  set_random_flow(f, 11);
  check_profiles_match_host(g, f, profile_names(), 1e-13);
  // Any order and any subset: each profile where `names` puts it.
  check_profiles_match_host(g, f, {"wT_mean", "u_rms", "T_mean", "w_rms", "T_rms", "v_rms"}, 1e-13);
  check_profiles_match_host(g, f, {"v_rms", "wT_mean"}, 1e-13);
}

// On a grid stretched along x and y the profiles are area-weighted means: a direct
// integration over each level, and for T = 3x - 2y + z the mean of a linear field, exact.
TEST(Profiles, AreaWeightedOnAGridStretchedAlongXAndY) {
  Grid g = Grid::make({7, 5, 4}, {0, 0, 0}, {1.4, 1.0, 0.8});
  g.stretch(0, tanh_faces(7, 0.0, 1.4, 1.5, Cluster::both), false);
  g.stretch(1, tanh_faces(5, 0.0, 1.0, 1.0, Cluster::low), true);
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  set_random_flow(f, 11);
  check_profiles_match_host(g, f, profile_names(), 1e-13);
  set_field(f.T, g, [](double x, double y, double z) { return 3 * x - 2 * y + z; });
  const std::vector<double> got = profiles_of(g, f, {"T_mean"});
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(got[k], 3 * 0.7 - 2 * 0.5 + g.coordinate(Stagger::centre, 2, k), 1e-14) << k;
  // An unweighted mean would miss by the stretching's offset of the centres.
  double plain = 0;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 7; ++i) plain += 3 * g.centre(0, i) - 2 * g.centre(1, j);
  EXPECT_GT(std::fabs(plain / 35 - (3 * 0.7 - 2 * 0.5)), 1e-3) << "the test tells weighted from unweighted";
}

// The kinetic energy and the volume mean weight each cell by its volume on stretched x and
// y: equal to a direct integration, and a field less its volume mean integrates to zero.
TEST(FlowDiagnostics, VolumeWeightedOnAGridStretchedAlongXAndY) {
  Grid g = Grid::make_stretched({6, 5, 4}, {0, 0, 0}, {1.5, 1.0, 1.0}, tanh_faces(4, 0.0, 1.0, 1.0, Cluster::both));
  g.stretch(0, tanh_faces(6, 0.0, 1.5, 1.5, Cluster::both), false);
  g.stretch(1, tanh_faces(5, 0.0, 1.0, 1.0, Cluster::high), false);
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  set_random_flow(f, 5);
  const Layout& L = g.layout;
  const std::vector<double> u = f.u.to_host(), v = f.v.to_host(), w = f.w.to_host();
  double ke = 0, volume = 0;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 6; ++i) {
        const auto at = [&](const std::vector<double>& a, int di, int dj, int dk) {
          return a[L.origin + L.index(i + di, j + dj, k + dk)];
        };
        const double dV = g.cell_volume(i, j, k);
        ke += 0.25 * (std::pow(at(u, 0, 0, 0), 2) + std::pow(at(u, 1, 0, 0), 2) + std::pow(at(v, 0, 0, 0), 2) +
                      std::pow(at(v, 0, 1, 0), 2) + std::pow(at(w, 0, 0, 0), 2) + std::pow(at(w, 0, 0, 1), 2)) * dV;
        volume += dV;
      }
  EXPECT_NEAR(kinetic_energy(g, f), ke / volume, 1e-14 * ke / volume);
  remove_volume_mean(g, f.T);
  const std::vector<double> t = f.T.to_host();
  double integral = 0, size = 0;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 6; ++i) {
        integral += t[L.origin + L.index(i, j, k)] * g.cell_volume(i, j, k);
        size += std::fabs(t[L.origin + L.index(i, j, k)]) * g.cell_volume(i, j, k);
      }
  EXPECT_LT(std::fabs(integral), 1e-14 * size);
}

// The plates' Nusselt numbers are area-weighted means: for T = 1 - z + a (x - 0.75) z (1 - z)
// on [0, 1.5] the x-dependent part's weighted mean vanishes (the midpoint rule on a linear
// function), so both plates give exactly 1; unweighted they would not on a stretched x.
TEST(FlowDiagnostics, PlateNusseltNumbersAreAreaWeightedOnAStretchedX) {
  Grid g = Grid::make({8, 3, 6}, {0, 0, 0}, {1.5, 1.0, 1.0});
  g.stretch(0, tanh_faces(8, 0.0, 1.5, 1.5, Cluster::low), false);
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  for (int c = 0; c < 4; ++c) fill(f[c], 0);
  set_field(f.T, g, [](double x, double, double z) { return 1 - z + 0.3 * (x - 0.75) * z * (1 - z); });
  Coefficients c;
  c.kappa = 1;
  std::array<Box, 4> unknown;
  for (int q = 0; q < 4; ++q) unknown[q] = g.layout.interior(q == 3 ? Stagger::centre : Stagger(q + 1));
  const Nusselt nu = nusselt_numbers(g, f, c, 1.0, 0.0, unknown, false);
  EXPECT_NEAR(nu.bottom, 1.0, 1e-14);
  EXPECT_NEAR(nu.top, 1.0, 1e-14);
  double plain = 0;
  for (int i = 0; i < 8; ++i) plain += g.centre(0, i) - 0.75;
  EXPECT_GT(std::fabs(plain / 8), 1e-2) << "the test tells weighted from unweighted";
}

// The dissipation estimates weight each face by its control volume on a stretched x: the
// thermal one is the mean of |grad T|^2 over the faces' control volumes (the x faces'
// dxc_i dy_j dz_k, the z faces' and the plates' half cells' dx_i dy_j dz), here summed
// directly from the grid's widths; for u = x (Lx - x) between no-slip walls (v = w = 0) the
// kinetic one is 1 + nu sum (u_{i+1} - u_i)^2 / dx_i / Lx (b_T = kappa = dT = H = 1): the
// summation by parts of the discrete budget, exact.
TEST(FlowDiagnostics, DissipationEstimatesOnAStretchedXAreTheirExactSums) {
  const int nx = 10;
  const double Lx = 1.5, a = 0.4;
  Grid g = Grid::make({nx, 2, 6}, {0, 0, 0}, {Lx, 1.0, 1.0});
  g.stretch(0, tanh_faces(nx, 0.0, Lx, 1.5, Cluster::both), false);
  FlowFields<double> f = FlowFields<double>::make(Backend::cpu(), g.layout, "");
  for (int q = 0; q < 4; ++q) fill(f[q], 0);
  set_field(f.T, g, [&](double x, double, double z) { return 1 - z + a * x; });
  FieldBC insulating;
  for (int face = 0; face < 6; ++face) insulating.face[face] = FaceBC{BoundaryKind::gradient, 0, 0};
  insulating.face[2] = insulating.face[3] = FaceBC{};  // periodic y
  fill_ghosts(f.T, insulating, g);
  set_field(f.u, g, [&](double x, double, double) { return x * (Lx - x); });
  Coefficients c;
  c.kappa = 1;
  c.nu = 1;
  c.b_T = 1;
  std::array<Box, 4> unknown;
  for (int q = 0; q < 4; ++q) unknown[q] = g.layout.interior(q == 3 ? Stagger::centre : Stagger(q + 1));
  unknown[0] = Box{{1, 0, 0}, {nx, 2, 6}};  // u's faces inside the walls
  const Nusselt nu = nusselt_numbers(g, f, c, 1.0, 0.0, unknown, true);
  const Layout& L = g.layout;
  const std::vector<double> T = f.T.to_host();
  const auto at = [&](int i, int j, int k) { return T[L.origin + L.index(i, j, k)]; };
  double grad2 = 0;
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < nx; ++i) {
        const double dx = g.width(0, i), dy = g.width(1, j), dz = g.dz(k);
        const double dxc = g.centre_distance(0, i + 1), dyc = g.centre_distance(1, j + 1);
        grad2 += std::pow((at(i + 1, j, k) - at(i, j, k)) / dxc, 2) * dxc * dy * dz;
        grad2 += std::pow((at(i, j + 1, k) - at(i, j, k)) / dyc, 2) * dx * dyc * dz;
        if (k + 1 < 6) grad2 += std::pow((at(i, j, k + 1) - at(i, j, k)) / g.dz_centres(k + 1), 2) * g.dz_centres(k + 1) * dx * dy;
        else grad2 += std::pow((0.0 - at(i, j, k)) / (dz / 2), 2) * dz / 2 * dx * dy;
        if (k == 0) grad2 += std::pow((at(i, j, k) - 1.0) / (dz / 2), 2) * dz / 2 * dx * dy;
      }
  EXPECT_NEAR(nu.thermal_dissipation, grad2 / (Lx * 1.0 * 1.0), 1e-12 * grad2);
  double squares = 0;
  for (int i = 0; i < nx; ++i) {
    const double x0 = g.face(0, i), x1 = g.face(0, i + 1);
    squares += std::pow(x1 * (Lx - x1) - x0 * (Lx - x0), 2) / (x1 - x0);
  }
  EXPECT_NEAR(nu.kinetic_dissipation, 1 + squares / Lx, 1e-13);
}

// Convection between plates from the conduction state plus a mode: the profiles of the
// run's state are the host's, and the volume Nusselt number, 1 + <w T> / (kappa dT / H),
// is 1 + the vertical mean of wT_mean over the inner faces over the conductive flux.
TEST(Profiles, VolumeNusseltNumberIsTheVerticalMeanOfTheHeatFluxProfile) {
  Case c = box_case({12, 8, 8}, {2.0, 2.0, 1.0});
  make_rayleigh_benard(c, 5000, 1.0, Units::diffusive, VelocityBC::no_slip, 2.0, 0.5);
  c.initial.perturbation_amplitude = 0.05;
  c.initial.perturbation_shape = PerturbationShape::mode;
  c.initial.mode = {1, 1};
  c.time.steps = 30;
  FlowSimulation<double> sim(c, Backend::cpu());
  while (!sim.finished()) sim.step();
  const Grid& g = sim.grid();
  const int nz = g.n()[2];
  check_profiles_match_host(g, sim.flow(), profile_names(), 1e-13);

  // Of T = theta + T_ref(z), the conduction profile between these plates.
  const std::vector<double> wT = profiles_of(g, sim.flow(), {"wT_mean"}, sim.reference());
  ASSERT_EQ(int(wT.size()), nz + 1);
  const std::vector<double> T_mean = profiles_of(g, sim.flow(), {"T_mean"}, sim.reference());
  const std::vector<double> T = sim.host_values("T");
  const std::size_t level = std::size_t(g.n()[0]) * g.n()[1];
  for (int k = 0; k < nz; ++k) {
    double sum = 0;
    for (std::size_t p = 0; p < level; ++p) sum += T[k * level + p];
    EXPECT_NEAR(T_mean[k], sum / double(level), 1e-14) << "level " << k;
  }
  EXPECT_EQ(wT[0], 0.0) << "no flux through the plates (w = 0 there)";
  EXPECT_EQ(wT[nz], 0.0);
  double inner = 0;
  for (int k = 1; k < nz; ++k) inner += wT[k];
  const double conductive = c.physics.kappa * (2.0 - 0.5) / 1.0;
  const double advective = sim.diagnostics().nusselt.volume - 1;
  EXPECT_GT(std::fabs(advective), 1e-4) << "the mode carries heat";
  EXPECT_NEAR(inner / nz / conductive, advective, 1e-12 * std::fabs(advective));
}
