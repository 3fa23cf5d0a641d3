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

// Which profiles go where in dst: plan.kind[p] into dst[plan.offset[p] + k], k < plan.levels[p].
struct ProfilePlan {
  int kind[profile_kinds];
  int levels[profile_kinds];
  std::ptrdiff_t offset[profile_kinds];
};

}  // namespace

bool profile_on_faces(const std::string& name) { return kind_on_faces(profile_kind(name)); }

std::size_t profile_values(const std::vector<std::string>& names, int nz) {
  std::size_t count = 0;
  for (int kind : profile_kinds_of(names)) count += std::size_t(nz) + (kind_on_faces(kind) ? 1 : 0);
  return count;
}

template <class R>
void horizontal_profiles_into(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                              const std::vector<std::string>& names, double* dst) {
  const std::vector<int> kinds = profile_kinds_of(names);
  if (kinds.empty()) return;

  const auto& n = g.layout.n;
  const int nz = n[2];
  ProfilePlan plan{};
  std::ptrdiff_t offset = 0;
  for (std::size_t p = 0; p < kinds.size(); ++p) {
    plan.kind[p] = kinds[p];
    plan.levels[p] = nz + (kind_on_faces(kinds[p]) ? 1 : 0);
    plan.offset[p] = offset;
    offset += plan.levels[p];
  }

  // One pass: the six sums of every level, cells 0..nz-1 and z-faces 0..nz.
  const Stencil<R> st = make_stencil<R>(g, f.T.backend());
  const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  const Backend& backend = f.T.backend();
  const LevelLine on_centres = reference.on_centres(g, backend), on_faces = reference.on_zfaces(g, backend);
  // Each level's sums are of T less a shift, T at (0, 0, k) of the whole grid (for the
  // round-off of the variance): read in place on one rank; under several ranks rank 0's
  // column, broadcast, so that every rank's sums share it.
  const Communicator& ranks = backend.ranks();
  const R* shift = T.origin;
  std::ptrdiff_t shift_stride = sz;
  R* column = nullptr;
  if (!ranks.alone()) {
    // The column alone crosses to the host (nz values), not the field.
    std::vector<R> host(nz);
    column = static_cast<R*>(backend.allocate(host.size() * sizeof(R)));
    if (ranks.rank() == 0) {
      pack_box(f.T, Box{{0, 0, 0}, {1, 1, nz}}, column);
      copy_bytes(host.data(), Backend::cpu(), column, backend, host.size() * sizeof(R));
    }
    ranks.broadcast(host.data(), host.size() * sizeof(R), 0);
    copy_bytes(column, backend, host.data(), Backend::cpu(), host.size() * sizeof(R));
    shift = column;
    shift_stride = 1;
  }
  const LevelSums* sums = reduce_levels_to_scratch(
      backend, Box{{0, 0, 0}, {n[0], n[1], nz + 1}}, LevelSums{0, 0, 0, 0, 0, 0}, SumOp{},
      [=] BOUSS_HD(int i, int j, int k) {
        const std::ptrdiff_t idx = i + j * sy + k * sz;
        LevelSums s{0, 0, 0, 0, 0, 0};
        if (k < nz) {
          const double t = double(T[idx]) - double(shift[k * shift_stride]);  // T' (LevelSums)
          const double u0 = u[idx], u1 = u[idx + 1], v0 = v[idx], v1 = v[idx + sy];
          s.T = t;
          s.T2 = t * t;
          s.uu = 0.5 * (u0 * u0 + u1 * u1);
          s.vv = 0.5 * (v0 * v0 + v1 * v1);
        }
        const double w0 = w[idx];
        s.ww = w0 * w0;
        s.wT = double(advective_heat_flux_at_zface(idx, k, w, T, st)) + w0 * on_faces(k);
        return s;
      },
      "horizontal profiles (level sums)");

  // Means and rms values of the named profiles, in names order.
  const double points = double(g.global_n()[0]) * double(g.global_n()[1]);  // every rank's levels together
  for_each(backend, Box{{0, 0, 0}, {int(kinds.size()), 1, nz + 1}}, [=] BOUSS_HD(int p, int, int k) {
    const int kind = plan.kind[p];
    if (k >= plan.levels[p]) return;  // cell profiles have nz levels
    const LevelSums s = sums[k];
    double value = 0;
    switch (kind) {
      case T_mean: value = double(shift[k * shift_stride]) + s.T / points + on_centres(k); break;
      case T_rms: {
        const double mean = s.T / points, variance = s.T2 / points - mean * mean;  // of T'
        value = sqrt(variance < 0 ? 0.0 : variance);  // round-off below 0 clipped; a NaN kept
        break;
      }
      case u_rms: value = sqrt(s.uu / points); break;
      case v_rms: value = sqrt(s.vv / points); break;
      case w_rms: value = sqrt(s.ww / points); break;
      case wT_mean: value = s.wT / points; break;
      default: break;
    }
    dst[plan.offset[p] + k] = value;
  }, "horizontal profiles");
  if (column) {
    backend.synchronize();
    backend.deallocate(column);
  }
}

template void horizontal_profiles_into<double>(const Grid&, const FlowFields<double>&, const ReferenceProfile&,
                                               const std::vector<std::string>&, double*);
template void horizontal_profiles_into<float>(const Grid&, const FlowFields<float>&, const ReferenceProfile&,
                                              const std::vector<std::string>&, double*);

}  // namespace bouss
