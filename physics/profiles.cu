// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/profiles.hpp"

#include <cmath>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "physics/operators_kernels.hpp"
#include "grid/stencil.hpp"

namespace bouss {

namespace {

// The profiles in profile_table() order (config/fields.hpp).
enum ProfileKind { T_mean = 0, T_rms, u_rms, v_rms, w_rms, wT_mean, profile_kinds };

int profile_kind(const std::string& name) { return int(&profile_named(name) - profile_table().data()); }

bool kind_on_faces(int kind) { return profile_table()[std::size_t(kind)].stagger == Stagger::face_z; }

// The kinds of the named profiles, each once.
std::vector<int> profile_kinds_of(const std::vector<std::string>& names) {
  std::vector<int> kinds;
  for (const std::string& name : names) {
    const int kind = profile_kind(name);
    for (int k : kinds)
      if (k == kind) throw std::invalid_argument("profile '" + name + "' named twice");
    kinds.push_back(kind);
  }
  return kinds;
}

// The sums over one z-level that every profile comes from, in double whatever the fields'
// precision (DESIGN.md: sums and means stay double). Cell sums are zero on the top face level.
// T is summed shifted by the level's first cell, T' = T - T(0, 0, k): the variance
// <T'^2> - <T'>^2 is <T^2> - <T>^2, but its cancellation is relative to the spread of the
// level's T, not its magnitude, so that the small T_rms of a nearly uniform level (a
// perturbation growing on the conduction state) keeps its digits.
struct LevelSums {
  double T, T2;  // T', T'^2 over the cells
  double uu, vv; // each cell's mean of its two x- (y-) faces' u^2 (v^2)
  double ww, wT; // w^2 and the advective heat flux over the z-faces
  BOUSS_HD LevelSums operator+(const LevelSums& o) const {
    return {T + o.T, T2 + o.T2, uu + o.uu, vv + o.vv, ww + o.ww, wT + o.wT};
  }
};

// One point's terms of its level's sums: its cell's (k < nz; T shifted by `shift`) and its
// z face's.
// Each term weighted by the cell's area over the mean cell's (`area`: 1 on uniform x and y),
// so that a level's sums over nx ny are its area-weighted means.
template <class R, class Z, class XY>
BOUSS_HD inline LevelSums level_sums_at(std::ptrdiff_t idx, int i, int j, int k, int nz, CView<R> u, CView<R> v,
                                        CView<R> w, CView<R> T, R shift, LevelLine on_faces, const Stencil<R, Z, XY>& st,
                                        const AreaWeights& area) {
  LevelSums s{0, 0, 0, 0, 0, 0};
  if (k < nz) {
    const double t = double(T[idx]) - double(shift);  // T' (LevelSums)
    const double u0 = u[idx], u1 = u[idx + 1], v0 = v[idx], v1 = v[idx + st.s[1]];
    s.T = t;
    s.T2 = t * t;
    s.uu = 0.5 * (u0 * u0 + u1 * u1);
    s.vv = 0.5 * (v0 * v0 + v1 * v1);
  }
  const double w0 = w[idx];
  s.ww = w0 * w0;
  s.wT = double(advective_heat_flux_at_zface(idx, k, w, T, st)) + w0 * on_faces(k);
  const double a = area(i, j);
  return {s.T * a, s.T2 * a, s.uu * a, s.vv * a, s.ww * a, s.wT * a};
}

// Which profiles go where in dst: plan.kind[p] into dst[plan.offset[p] + k], k < plan.levels[p].
struct ProfilePlan {
  int kind[profile_kinds];
  int levels[profile_kinds];
  std::ptrdiff_t offset[profile_kinds];
};

ProfilePlan make_plan(const std::vector<int>& kinds, int nz) {
  ProfilePlan plan{};
  std::ptrdiff_t offset = 0;
  for (std::size_t p = 0; p < kinds.size(); ++p) {
    plan.kind[p] = kinds[p];
    plan.levels[p] = nz + (kind_on_faces(kinds[p]) ? 1 : 0);
    plan.offset[p] = offset;
    offset += plan.levels[p];
  }
  return plan;
}

// The means over one level that every profile comes from.
struct LevelMoments {
  double T_mean, T_variance;  // <T>_h and <T^2>_h - <T>_h^2
  double uu, vv, ww, wT;      // <u^2>_h, <v^2>_h, <w^2>_h, <w T>_h
};

BOUSS_HD inline LevelMoments level_moments(const LevelSums& s, double shift, double reference, double points) {
  const double mean = s.T / points;  // of T' = T - shift
  return {shift + mean + reference, s.T2 / points - mean * mean, s.uu / points, s.vv / points, s.ww / points,
          s.wT / points};
}

// One profile's value at a level from its moments: the formulas of the header's table.
BOUSS_HD inline double profile_value(int kind, const LevelMoments& m) {
  switch (kind) {
    case T_mean: return m.T_mean;
    case T_rms: return sqrt(m.T_variance < 0 ? 0.0 : m.T_variance);  // round-off below 0 clipped; a NaN kept
    case u_rms: return sqrt(m.uu);
    case v_rms: return sqrt(m.vv);
    case w_rms: return sqrt(m.ww);
    case wT_mean: return m.wT;
    default: return 0;
  }
}

// What a time average accumulates per level (profile_moment_values): each moment weighted by
// the sample's weight, and the square of T_mean less a shift c (the window's first sample's
// T_mean, kept as the 8th value), so that T_rms over an interval is the rms about the mean
// over the level and the interval together,
//   <T^2>_{h,t} - <T>_{h,t}^2 = <T_variance>_t + <(T_mean - c)^2>_t - (<T_mean>_t - c)^2,
// with the cancellation of the last two relative to the spread of T_mean in time, not to its
// size (as the level sums' shift does for T_variance).
constexpr int accumulated_moments = 8;

}  // namespace

bool profile_on_faces(const std::string& name) { return kind_on_faces(profile_kind(name)); }

std::size_t profile_values(const std::vector<std::string>& names, int nz) {
  std::size_t count = 0;
  for (int kind : profile_kinds_of(names)) count += std::size_t(nz) + (kind_on_faces(kind) ? 1 : 0);
  return count;
}

namespace {

// The six sums of every level of the flow (cells 0..nz-1 and z-faces 0..nz) into the
// backend's scratch, queued; `shift` (and its stride) the T each level's sums are shifted by.
// `column` is set when the shift lies in memory the caller frees (release_shift) after the
// kernels that read it.
template <class R>
struct LevelSumsPass {
  const LevelSums* sums = nullptr;
  const R* shift = nullptr;
  std::ptrdiff_t shift_stride = 0;
  R* column = nullptr;
  double points = 0;
  int nz = 0;
  LevelLine on_centres;
  // The moments of level k (cells: k < nz; faces: k <= nz), in a kernel.
  BOUSS_HD LevelMoments moments(int k) const {
    const double s = k < nz ? double(shift[k * shift_stride]) : 0.0, ref = k < nz ? on_centres(k) : 0.0;
    return level_moments(sums[k], s, ref, points);
  }
};

template <class R>
LevelSumsPass<R> level_sums(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference) {
  LevelSumsPass<R> pass;
  const auto& n = g.layout.n;
  const int nz = n[2];
  const Stencil<R> st = make_stencil<R>(g, f.T.backend());
  const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  const Backend& backend = f.T.backend();
  pass.on_centres = reference.on_centres(g, backend);
  const LevelLine on_faces = reference.on_zfaces(g, backend);
  const AreaWeights area = area_weights(g, backend);
  // Each level's sums are of T less a shift, T at (0, 0, k) of the whole grid (for the
  // round-off of the variance): read in place on one rank; under several ranks rank 0's
  // column, broadcast, so that every rank's sums share it.
  const Communicator& ranks = backend.ranks();
  const R* shift = T.origin;
  std::ptrdiff_t shift_stride = sz;
  if (!ranks.alone()) {
    // The column alone crosses to the host (nz values), not the field.
    std::vector<R> host(nz);
    pass.column = static_cast<R*>(backend.allocate(host.size() * sizeof(R)));
    if (ranks.rank() == 0) {
      pack_box(f.T, Box{{0, 0, 0}, {1, 1, nz}}, pass.column);
      copy_bytes(host.data(), Backend::cpu(), pass.column, backend, host.size() * sizeof(R));
    }
    ranks.broadcast(host.data(), host.size() * sizeof(R), 0);
    copy_bytes(pass.column, backend, host.data(), Backend::cpu(), host.size() * sizeof(R));
    shift = pass.column;
    shift_stride = 1;
  }
  pass.shift = shift;
  pass.shift_stride = shift_stride;
  pass.sums = reduce_levels_to_scratch(
      backend, Box{{0, 0, 0}, {n[0], n[1], nz + 1}}, LevelSums{0, 0, 0, 0, 0, 0}, SumOp{},
      [=] BOUSS_HD(int i, int j, int k) {
        return level_sums_at(i + j * sy + k * sz, i, j, k, nz, u, v, w, T, shift[k < nz ? k * shift_stride : 0], on_faces, st,
                             area);
      },
      "horizontal profiles (level sums)");
  pass.points = double(g.global_n()[0]) * double(g.global_n()[1]);  // every rank's levels together
  pass.nz = nz;
  return pass;
}

template <class R>
void release_shift(const Backend& backend, LevelSumsPass<R>& pass) {
  if (!pass.column) return;
  backend.synchronize();
  backend.deallocate(pass.column);
  pass.column = nullptr;
}

}  // namespace

template <class R>
void horizontal_profiles_into(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                              const std::vector<std::string>& names, double* dst) {
  const std::vector<int> kinds = profile_kinds_of(names);
  if (kinds.empty()) return;
  const int nz = g.layout.n[2];
  const ProfilePlan plan = make_plan(kinds, nz);
  const Backend& backend = f.T.backend();
  LevelSumsPass<R> pass = level_sums(g, f, reference);
  const LevelSumsPass<R> level = pass;
  // Means and rms values of the named profiles, in names order.
  for_each(backend, Box{{0, 0, 0}, {int(kinds.size()), 1, nz + 1}}, [=] BOUSS_HD(int p, int, int k) {
    if (k >= plan.levels[p]) return;  // cell profiles have nz levels
    dst[plan.offset[p] + k] = profile_value(plan.kind[p], level.moments(k));
  }, "horizontal profiles");
  release_shift(backend, pass);
}

std::size_t profile_moment_values(int nz) { return std::size_t(accumulated_moments) * std::size_t(nz + 1); }

namespace {

// Adds the clock's weight times the moments of every level of `level` to acc.
template <class R>
void accumulate_moments(const Backend& backend, const LevelSumsPass<R>& level, const AveragingClock* clock,
                        double* acc) {
  for_each(backend, Box{{0, 0, 0}, {1, 1, level.nz + 1}}, [=] BOUSS_HD(int, int, int k) {
    const LevelMoments m = level.moments(k);
    const double w = clock->weight;
    double* a = acc + std::ptrdiff_t(accumulated_moments) * k;
    if (clock->total == w) a[7] = m.T_mean;  // the window's first sample (plan_sample: total = its weight)
    const double d = m.T_mean - a[7];
    a[0] += w * m.T_mean;
    a[1] += w * m.T_variance;
    a[2] += w * (d * d);
    a[3] += w * m.uu;
    a[4] += w * m.vv;
    a[5] += w * m.ww;
    a[6] += w * m.wT;
  }, "horizontal profiles (time sums)");
}

// The state check's maximum and the level sums, combined per level in one reduction.
struct LevelSumsAndRate {
  LevelSums s;
  double rate;
};
struct SumsAndMaxOp {
  BOUSS_HD LevelSumsAndRate operator()(const LevelSumsAndRate& a, const LevelSumsAndRate& b) const {
    return {a.s + b.s, MaxOp{}(a.rate, b.rate)};
  }
};

template <class R>
struct CheckAndSumLevels {
  const Grid& g;
  const FlowFields<R>& f;
  const ReferenceProfile& reference;
  double* rate;
  LevelSums* sums;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const auto& n = g.layout.n;
    const int nz = n[2];
    const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    const Backend& backend = f.T.backend();
    const LevelLine on_faces = reference.on_zfaces(g, backend);
    const AreaWeights area = area_weights(g, backend);
    const R* shift = T.origin;  // each level's first cell (LevelSums)
    const LevelSumsAndRate* levels = reduce_levels_to_scratch(
        backend, Box{{0, 0, 0}, {n[0], n[1], nz + 1}}, LevelSumsAndRate{{0, 0, 0, 0, 0, 0}, 0.0}, SumsAndMaxOp{},
        [=] BOUSS_HD(int i, int j, int k) {
          const std::ptrdiff_t idx = i + j * sy + k * sz;
          return LevelSumsAndRate{level_sums_at(idx, i, j, k, nz, u, v, w, T, shift[k < nz ? k * sz : 0], on_faces, st, area),
                                  k < nz ? double(state_rate_at_centre(idx, i, j, k, u, v, w, T, st)) : 0.0};
        },
        "state check and level sums");
    double* const out_rate = rate;
    LevelSums* const out = sums;
    for_each(backend, Box{{0, 0, 0}, {1, 1, 1}}, [=] BOUSS_HD(int, int, int) {
      double m = 0;  // the state check's start (physics/flow.cu)
      for (int k = 0; k <= nz; ++k) {
        m = MaxOp{}(m, levels[k].rate);
        out[k] = levels[k].s;
      }
      *out_rate = m;
    }, "state check (advective rate, non-finite values) of the levels");
  }
};

}  // namespace

template <class R>
void accumulate_profile_moments(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                const AveragingClock* clock, double* acc) {
  const Backend& backend = f.T.backend();
  LevelSumsPass<R> pass = level_sums(g, f, reference);
  accumulate_moments(backend, pass, clock, acc);
  release_shift(backend, pass);
}

std::size_t level_sums_bytes(int nz) { return sizeof(LevelSums) * std::size_t(nz + 1); }

template <class R>
void state_rate_and_level_sums_into(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                    double* rate, void* sums) {
  with_stencil<R>(g, f.T.backend(), CheckAndSumLevels<R>{g, f, reference, rate, static_cast<LevelSums*>(sums)});
}

template <class R>
void accumulate_profile_moments_from(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                     const void* sums, const AveragingClock* clock, double* acc) {
  LevelSumsPass<R> pass;
  pass.sums = static_cast<const LevelSums*>(sums);
  pass.shift = f.T.cview().origin;
  pass.shift_stride = g.layout.sz;
  pass.points = double(g.global_n()[0]) * double(g.global_n()[1]);
  pass.nz = g.layout.n[2];
  pass.on_centres = reference.on_centres(g, f.T.backend());
  accumulate_moments(f.T.backend(), pass, clock, acc);
}

void profiles_from_moments(const Backend& backend, const std::vector<std::string>& names, int nz, const double* acc,
                           const double* total, double* dst) {
  const std::vector<int> kinds = profile_kinds_of(names);
  if (kinds.empty()) return;
  const ProfilePlan plan = make_plan(kinds, nz);
  for_each(backend, Box{{0, 0, 0}, {int(kinds.size()), 1, nz + 1}}, [=] BOUSS_HD(int p, int, int k) {
    if (k >= plan.levels[p]) return;
    const double* a = acc + std::ptrdiff_t(accumulated_moments) * k;
    const double W = *total, mean = a[0] / W, d = mean - a[7];
    const LevelMoments m{mean, a[1] / W + (a[2] / W - d * d), a[3] / W, a[4] / W, a[5] / W, a[6] / W};
    dst[plan.offset[p] + k] = profile_value(plan.kind[p], m);
  }, "horizontal profiles (time means)");
}

template void horizontal_profiles_into<double>(const Grid&, const FlowFields<double>&, const ReferenceProfile&,
                                               const std::vector<std::string>&, double*);
template void horizontal_profiles_into<float>(const Grid&, const FlowFields<float>&, const ReferenceProfile&,
                                              const std::vector<std::string>&, double*);
template void state_rate_and_level_sums_into<double>(const Grid&, const FlowFields<double>&, const ReferenceProfile&,
                                                     double*, void*);
template void state_rate_and_level_sums_into<float>(const Grid&, const FlowFields<float>&, const ReferenceProfile&,
                                                    double*, void*);
template void accumulate_profile_moments_from<double>(const Grid&, const FlowFields<double>&, const ReferenceProfile&,
                                                      const void*, const AveragingClock*, double*);
template void accumulate_profile_moments_from<float>(const Grid&, const FlowFields<float>&, const ReferenceProfile&,
                                                     const void*, const AveragingClock*, double*);
template void accumulate_profile_moments<double>(const Grid&, const FlowFields<double>&, const ReferenceProfile&,
                                                 const AveragingClock*, double*);
template void accumulate_profile_moments<float>(const Grid&, const FlowFields<float>&, const ReferenceProfile&,
                                                const AveragingClock*, double*);

}  // namespace bouss
