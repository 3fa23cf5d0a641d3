// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/lock_exchange.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "physics/lock_exchange_kernels.hpp"
#include "grid/stencil.hpp"

namespace bouss {

namespace {

// The signed positions (physics/lock_exchange_kernels.hpp) of both fronts, combined by the
// larger of each; NaN propagates as MaxOp does.
struct FrontPair {
  double floor, lid;
};
struct FrontPairMax {
  BOUSS_HD FrontPair operator()(const FrontPair& a, const FrontPair& b) const {
    const MaxOp max;
    return {max(a.floor, b.floor), max(a.lid, b.lid)};
  }
};

// sum T dz, sum theta z dz, min T, max T over cells (the sums times dx dy afterwards).
struct TemperatureSums {
  double heat, theta_z, min, max;
};
struct TemperatureSumsOp {
  BOUSS_HD TemperatureSums operator()(const TemperatureSums& a, const TemperatureSums& b) const {
    return {a.heat + b.heat, a.theta_z + b.theta_z, MinOp{}(a.min, b.min), MaxOp{}(a.max, b.max)};
  }
};

struct EnergyRatesSum {
  BOUSS_HD EnergyRates operator()(const EnergyRates& a, const EnergyRates& b) const {
    return {a.dissipation + b.dissipation, a.conversion + b.conversion};
  }
};

}  // namespace

bool is_lock_exchange(const Case& c) {
  return c.initial.profile == TemperatureProfile::lock && c.initial.left != c.initial.right;
}

Lock lock_of(const Case& c, double fraction) {
  if (!is_lock_exchange(c))
    throw std::invalid_argument(c.source + ": /initial/temperature: expected the lock profile with two different fluids");
  if (!(fraction > 0 && fraction < 1))
    throw std::invalid_argument("front fraction " + std::to_string(fraction) + ": expected a number in (0, 1)");
  const InitialCondition& ic = c.initial;
  Lock lock;
  // b_T > 0: buoyancy b_T theta along +z, so the colder fluid is the dense one.
  const bool colder_is_dense = c.physics.buoyancy >= 0;
  const bool left_dense = colder_is_dense ? ic.left < ic.right : ic.left > ic.right;
  lock.dense = left_dense ? ic.left : ic.right;
  lock.light = left_dense ? ic.right : ic.left;
  lock.position = ic.position;
  lock.dense_direction = left_dense ? 1 : -1;
  lock.fraction = fraction;
  return lock;
}

// The bottom and top rows read together in one pass over the bottom row's (i, j).
template <class R>
FrontPositions front_positions(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                               const Lock& lock) {
  const auto& n = g.layout.n;
  const int top = n[2] - 1;
  const LevelLine T_ref = reference.on_centres(g, Backend::cpu());
  const double ref_floor = T_ref(0), ref_lid = T_ref(top);
  FrontRow floor, lid;
  floor.ahead = lock.light;
  lid.ahead = lock.dense;
  floor.threshold = lid.threshold = lock.fraction * lock.contrast();
  floor.direction = lock.dense_direction;
  lid.direction = -lock.dense_direction;
  // Cells numbered over the whole grid (a block of a cut grid starts at its offset): the
  // domain's ends bound the search, and a crossing between two blocks is found from the
  // exchanged ghost.
  const Grid whole = g.whole();
  const int o = g.offset()[0];
  floor.x0 = lid.x0 = whole.coordinate(Stagger::centre, 0, 0);
  floor.h = lid.h = g.h[0];
  floor.n = lid.n = whole.layout.n[0];
  if (g.stretched(0)) {
    floor.xc = lid.xc = g.axis_view<double>(f.T.backend(), 0).zc.p;
    floor.offset = lid.offset = o;
  }
  const double none = -INFINITY;
  const CView<R> T = f.T.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const FrontPair found = reduce(
      f.T.backend(), Box{{0, 0, 0}, {n[0], n[1], 1}}, FrontPair{none, none}, FrontPairMax{},
      [=] BOUSS_HD(int i, int j, int) {
        const std::ptrdiff_t b = i + j * sy, t = b + top * sz;
        return FrontPair{front_crossing(floor, i + o, double(T[b]) + ref_floor, double(T[b + floor.direction]) + ref_floor, none),
                         front_crossing(lid, i + o, double(T[t]) + ref_lid, double(T[t + lid.direction]) + ref_lid, none)};
      },
      "lock exchange fronts");
  FrontPositions p;
  p.floor_x = found.floor == none ? lock.position : floor.direction * found.floor;
  p.lid_x = found.lid == none ? lock.position : lid.direction * found.lid;
  p.floor_travelled = floor.direction * (p.floor_x - lock.position);
  p.lid_travelled = lid.direction * (p.lid_x - lock.position);
  return p;
}

template <class R>
TemperatureIntegrals temperature_integrals(const Grid& g, const FlowFields<R>& f, const Coefficients& c) {
  const CView<R> T = f.T.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const LevelLine T_ref = c.reference.on_centres(g, f.T.backend());
  const ZView<double> z = g.z_view<double>(f.T.backend());
  const AreaWeights area = area_weights(g, f.T.backend());
  // Sums of T dz and theta z dz: the cell volumes are dx dy dz(k).
  const TemperatureSums s = reduce(
      f.T.backend(), g.layout.interior(Stagger::centre), TemperatureSums{0, 0, INFINITY, -INFINITY},
      TemperatureSumsOp{},
      [=] BOUSS_HD(int i, int j, int k) {
        const double theta = T[i + j * sy + k * sz], t = theta + T_ref(k), dz = z.zf[k + 1] - z.zf[k];
        const double a = area(i, j);  // the cell's area over the mean cell's (1 on uniform x and y)
        return TemperatureSums{t * dz * a, theta * z.zc[k] * dz * a, t, t};
      },
      "lock exchange temperature integrals");
  const double dA = g.h[0] * g.h[1];
  return {s.heat * dA, -c.b_T * s.theta_z * dA, s.min, s.max};
}

template <class R>
LockDiagnostics lock_diagnostics(const Grid& g, const FlowFields<R>& f, const Coefficients& c, const Lock& lock) {
  LockDiagnostics d;
  d.fronts = front_positions(g, f, c.reference, lock);
  d.temperature = temperature_integrals(g, f, c);
  d.kinetic_energy = kinetic_energy(g, f) * g.whole().volume();
  return d;
}

// One pass over the points 0..n of every axis: each adds its u, v and w faces' viscous work
// where they are unknowns of the step, and its cell's conversion where it is a cell, each
// times its control volume (grid/stencil.hpp ControlAreas: 1 horizontally on uniform axes).
template <class R>
struct EnergyRatesInto {
  const Grid& g;
  const FlowFields<R>& f;
  const Coefficients& c;
  const std::array<Box, 4>& unknown;
  EnergyRates* out;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    const ControlAreas areas = control_areas(g, f.u.backend());
    const ViscousWork<R, Stencil<R, Z, XY>> viscous_work{IndexRange::of(unknown[0]), IndexRange::of(unknown[1]),
                                                         IndexRange::of(unknown[2]), u, v, w, st, areas};
    const IndexRange cells = IndexRange::of(g.layout.interior(Stagger::centre));
    // Control volumes dx dy dz(k) for u, v and T, dx dy dz_centres(k) for w.
    const double dA = g.h[0] * g.h[1];
    const double viscous = -c.nu * dA, diffusive = -c.kappa * c.b_T * dA;
    const ZView<double> z = g.z_view<double>(f.u.backend());
    const auto& n = g.layout.n;
    reduce_into(f.u.backend(), Box{{0, 0, 0}, {n[0] + 1, n[1] + 1, n[2] + 1}}, EnergyRates{0, 0}, EnergyRatesSum{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  double conversion = 0;
                  const double dz = z.zf[k + 1] - z.zf[k], dzc = z.zc[k] - z.zc[k - 1];
                  const double work = viscous_work(i, j, k, idx, dz, dzc);
                  if (cells.contains(i, j, k))
                    conversion = z.zc[k] * double(laplacian<-1>(idx, i, j, k, T, st)) * dz * areas.cell(i, j);
                  return EnergyRates{viscous * work, diffusive * conversion};
                },
                out, "lock exchange energy rates");
  }
};

template <class R>
void energy_rates_into(const Grid& g, const FlowFields<R>& f, const Coefficients& c, const std::array<Box, 4>& unknown,
                       EnergyRates* out) {
  with_stencil<R>(g, f.u.backend(), EnergyRatesInto<R>{g, f, c, unknown, out});
}

#define BOUSS_LOCK_EXCHANGE(R)                                                                                    \
  template FrontPositions front_positions<R>(const Grid&, const FlowFields<R>&, const ReferenceProfile&,          \
                                             const Lock&);                                                        \
  template TemperatureIntegrals temperature_integrals<R>(const Grid&, const FlowFields<R>&, const Coefficients&);  \
  template LockDiagnostics lock_diagnostics<R>(const Grid&, const FlowFields<R>&, const Coefficients&,           \
                                               const Lock&);                                                      \
  template void energy_rates_into<R>(const Grid&, const FlowFields<R>&, const Coefficients&,                      \
                                     const std::array<Box, 4>&, EnergyRates*);
BOUSS_LOCK_EXCHANGE(double)
BOUSS_LOCK_EXCHANGE(float)
#undef BOUSS_LOCK_EXCHANGE

}  // namespace bouss
