// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/flow.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "physics/operators_kernels.hpp"
#include "grid/stencil.hpp"

namespace bouss {

namespace {

// A box's bounds as a kernel reads them.
struct BoxBounds {
  int lo[3], hi[3];
  explicit BoxBounds(const Box& b) : lo{b.lo[0], b.lo[1], b.lo[2]}, hi{b.hi[0], b.hi[1], b.hi[2]} {}
  BOUSS_HD bool contains(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};
// The smallest box holding all of them.
template <std::size_t N>
Box union_of(const std::array<Box, N>& boxes) {
  Box u = boxes[0];
  for (const Box& b : boxes)
    for (int a = 0; a < 3; ++a) {
      u.lo[a] = std::min(u.lo[a], b.lo[a]);
      u.hi[a] = std::max(u.hi[a], b.hi[a]);
    }
  return u;
}
// The Adams-Bashforth step of u, v, w and theta in one pass: one thread per point of the
// union of their unknown boxes computes each component whose box holds the point, so the
// neighbourhoods of u, v, w and T are read from memory once for all four (a launch per
// component read u, v and w four times over: 26 arrays of traffic where this moves 16).
// The launch asks for 3 blocks of 256 threads per multiprocessor (grid/for_each.hpp): the
// compiler's own choice, 36 registers at fp64, ran 6x slower (1.96 ms at 256^2 x 128 on the
// H200) than the 60 registers it took when allowed (0.34 ms, 66% of DRAM bandwidth); 3 was
// the best of 2-5 over fp64, fp32 and a stretched z (docs/performance.md). Reading dt and
// AB2's coefficients on the device (the step's clock) takes it to 68 registers at fp64; 4
// blocks (at most 64) made the developed fft step 10% slower on an H100 (1.52 ms against 1.38).
constexpr int advance_blocks_per_sm = 3;

template <class R, class Z, class XY>
void advance_all(const Stencil<R, Z, XY>& st, const Coefficients& c, KernelScalar dt, KernelScalar ab_a, KernelScalar ab_b,
                 const FlowFields<R>& now, FlowFields<R>& G, FlowFields<R>& next, const std::array<Box, 4>& unknown) {
  const CView<R> u = now.u.cview(), v = now.v.cview(), w = now.w.cview(), T = now.T.cview();
  const View<R> Gu = G.u.view(), Gv = G.v.view(), Gw = G.w.view(), GT = G.T.view();
  const View<R> nu_out = next.u.view(), nv_out = next.v.view(), nw_out = next.w.view(), nT_out = next.T.view();
  const R nu = R(c.nu), kappa = R(c.kappa), b_T = R(c.b_T);
  const R gradient = R(c.reference.gradient);
  const BoxBounds in_u(unknown[0]), in_v(unknown[1]), in_w(unknown[2]), in_T(unknown[3]);
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each<advance_blocks_per_sm>(now.u.backend(), union_of(unknown), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    const R a = R(ab_a()), b = R(ab_b()), h = R(dt());
    if (in_u.contains(i, j, k)) {
      const R t = -momentum_advection_at_face<0>(idx, i, j, k, u, v, w, st) + nu * laplacian<0>(idx, i, j, k, u, st);
      const R old = Gu[idx];
      Gu[idx] = t;
      nu_out[idx] = u[idx] + h * (a * t + b * old);
    }
    if (in_v.contains(i, j, k)) {
      const R t = -momentum_advection_at_face<1>(idx, i, j, k, u, v, w, st) + nu * laplacian<1>(idx, i, j, k, v, st);
      const R old = Gv[idx];
      Gv[idx] = t;
      nv_out[idx] = v[idx] + h * (a * t + b * old);
    }
    if (in_w.contains(i, j, k)) {
      R t = -momentum_advection_at_face<2>(idx, i, j, k, u, v, w, st) + nu * laplacian<2>(idx, i, j, k, w, st);
      t += buoyancy_at_zface(idx, k, T, b_T, st);
      const R old = Gw[idx];
      Gw[idx] = t;
      nw_out[idx] = w[idx] + h * (a * t + b * old);
    }
    if (in_T.contains(i, j, k)) {
      const R t = -advection_at_centre(idx, i, j, k, T, u, v, w, st) - reference_advection_at_centre(idx, w, gradient, st) +
                  kappa * laplacian<-1>(idx, i, j, k, T, st);
      const R old = GT[idx];
      GT[idx] = t;
      nT_out[idx] = T[idx] + h * (a * t + b * old);
    }
  }, "advance_ab2");
}

// u, v, w -= dt grad(phi) in one pass: one thread per point of the union of the three
// unknown boxes updates each component whose box holds the point, so phi's neighbourhood is
// read once for the three (a launch per component read phi three times: 9 arrays of
// traffic where this moves 7).
template <class R, class Z, class XY>
void subtract_gradient_all(const Stencil<R, Z, XY>& st, const Field<R>& phi, KernelScalar dt, FlowFields<R>& f,
                           const std::array<Box, 4>& unknown) {
  const CView<R> p = phi.cview();
  const View<R> u = f.u.view(), v = f.v.view(), w = f.w.view();
  const BoxBounds in_u(unknown[0]), in_v(unknown[1]), in_w(unknown[2]);
  const std::array<Box, 3> velocity{unknown[0], unknown[1], unknown[2]};
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(phi.backend(), union_of(velocity), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    const R h = R(dt());
    if (in_u.contains(i, j, k)) u[idx] -= h * gradient_at_face<0>(idx, i, j, k, p, st);
    if (in_v.contains(i, j, k)) v[idx] -= h * gradient_at_face<1>(idx, i, j, k, p, st);
    if (in_w.contains(i, j, k)) w[idx] -= h * gradient_at_face<2>(idx, i, j, k, p, st);
  }, "subtract_gradient");
}

// The step's launches for either z geometry (grid/stencil.hpp with_stencil).
template <class R>
struct AdvanceAll {
  const Coefficients& c;
  KernelScalar dt, a, b;
  const FlowFields<R>& now;
  FlowFields<R>& G;
  FlowFields<R>& next;
  const std::array<Box, 4>& unknown;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    advance_all(st, c, dt, a, b, now, G, next, unknown);
  }
};

template <class R>
struct DivergenceInto {
  const Grid& g;
  const FlowFields<R>& f;
  Field<R>& out;
  KernelScalar scale;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
    const View<R> o = out.view();
    const KernelScalar s = scale;
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    for_each(out.backend(), g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const std::ptrdiff_t idx = i + j * sy + k * sz;
      o[idx] = R(s()) * divergence_at_centre(idx, i, j, k, u, v, w, st);
    }, "divergence");
  }
};

template <class R>
struct SubtractGradient {
  const Field<R>& phi;
  KernelScalar dt;
  FlowFields<R>& f;
  const std::array<Box, 4>& unknown;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    subtract_gradient_all(st, phi, dt, f, unknown);
  }
};

template <class R>
struct StateRateInto {
  const Grid& g;
  const FlowFields<R>& f;
  double* out;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    reduce_into(f.u.backend(), g.layout.interior(Stagger::centre), 0.0, MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  return double(state_rate_at_centre(i + j * sy + k * sz, i, j, k, u, v, w, T, st));
                },
                out, "state check (advective rate, non-finite values)");
  }
};

}  // namespace

template <class R>
FlowFields<R> FlowFields<R>::make(const Backend& b, const Layout& L, const char* suffix) {
  const std::string s = suffix;
  return FlowFields{Field<R>(b, L, Stagger::face_x, "u" + s), Field<R>(b, L, Stagger::face_y, "v" + s),
                    Field<R>(b, L, Stagger::face_z, "w" + s), Field<R>(b, L, Stagger::centre, "T" + s)};
}

template <class R>
void advance_ab2(const Grid& g, const Coefficients& c, KernelScalar dt, KernelScalar a, KernelScalar b,
                 const FlowFields<R>& now, FlowFields<R>& G, FlowFields<R>& next, const std::array<Box, 4>& unknown) {
  with_stencil<R>(g, now.u.backend(), AdvanceAll<R>{c, dt, a, b, now, G, next, unknown});
}

template <class R>
void divergence(const Grid& g, const FlowFields<R>& f, Field<R>& out, KernelScalar scale) {
  with_stencil<R>(g, out.backend(), DivergenceInto<R>{g, f, out, scale});
}

template <class R>
void subtract_gradient(const Grid& g, const Field<R>& phi, KernelScalar dt, FlowFields<R>& f,
                       const std::array<Box, 4>& unknown) {
  with_stencil<R>(g, phi.backend(), SubtractGradient<R>{phi, dt, f, unknown});
}

template <class R>
struct MaxAbsDivergence {
  const Grid& g;
  const FlowFields<R>& f;
  double* out;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    *out = reduce(f.u.backend(), g.layout.interior(Stagger::centre), 0.0, MaxOp{},
                  [=] BOUSS_HD(int i, int j, int k) {
                    const double d = divergence_at_centre(i + j * sy + k * sz, i, j, k, u, v, w, st);
                    return d < 0 ? -d : d;
                  }, "max_abs_divergence");
  }
};

template <class R>
double max_abs_divergence(const Grid& g, const FlowFields<R>& f) {
  double out = 0;
  with_stencil<R>(g, f.u.backend(), MaxAbsDivergence<R>{g, f, &out});
  return out;
}

// The squares in R, their sum in double, each cell weighted by its volume (its thickness times
// its area over the mean cell's: a face's share is then half of each cell beside it).
template <class R>
double kinetic_energy(const Grid& g, const FlowFields<R>& f) {
  const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const ZView<R> z = g.z_view<R>(f.u.backend());
  const AreaWeights area = area_weights(g, f.u.backend());
  const double sum = reduce(f.u.backend(), g.layout.interior(Stagger::centre), 0.0, SumOp{},
                            [=] BOUSS_HD(int i, int j, int k) {
                              const std::ptrdiff_t idx = i + j * sy + k * sz;
                              const R u0 = u[idx], u1 = u[idx + 1], v0 = v[idx], v1 = v[idx + sy];
                              const R w0 = w[idx], w1 = w[idx + sz];
                              return double(R(0.25) * (u0 * u0 + u1 * u1 + v0 * v0 + v1 * v1 + w0 * w0 + w1 * w1)) *
                                     (z.zf[k + 1] - z.zf[k]) * area(i, j);
                            }, "kinetic_energy");
  return sum / (double(g.global_n()[0]) * g.global_n()[1] * g.length(2));
}

template <class R>
void state_rate_into(const Grid& g, const FlowFields<R>& f, double* out) {
  with_stencil<R>(g, f.u.backend(), StateRateInto<R>{g, f, out});
}

template <class R>
double max_abs_velocity(const Grid& g, const FlowFields<R>& f) {
  const CView<R> u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  return reduce(f.u.backend(), g.layout.interior(Stagger::centre), 0.0, MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  using std::fabs;
                  using std::fmax;
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  return double(fmax(fmax(fmax(fabs(u[idx]), fabs(u[idx + 1])), fmax(fabs(v[idx]), fabs(v[idx + sy]))),
                                     fmax(fabs(w[idx]), fabs(w[idx + sz]))));
                }, "max_abs_velocity");
}

namespace {
struct DissipationSums {
  double viscous = 0, thermal = 0;
};
struct DissipationSumsOp {
  BOUSS_HD DissipationSums operator()(const DissipationSums& a, const DissipationSums& b) const {
    return {a.viscous + b.viscous, a.thermal + b.thermal};
  }
};

// One pass over the points 0..n of every axis: the viscous work u . lap u of each velocity
// face that is an unknown of the step (as the energy budget's), and at each cell the squared
// differences of T across its upper x, y and z faces (the periodic wrap and the insulating
// walls' zero through the ghosts; the plates' half cells explicitly), each times its face's
// control volume over the mean cell's area (grid/stencil.hpp ControlAreas).
template <class R>
struct DissipationSumsOf {
  const Grid& g;
  const FlowFields<R>& f;
  const Coefficients& c;
  double T_bottom, T_top;
  const std::array<Box, 4>& unknown;
  DissipationSums* out;
  template <class Z, class XY>
  void operator()(const Stencil<R, Z, XY>& st) const {
    const Backend& backend = f.T.backend();
    const ControlAreas areas = control_areas(g, backend);
    const ViscousWork<R, Stencil<R, Z, XY>> viscous_work{IndexRange::of(unknown[0]), IndexRange::of(unknown[1]),
                                                         IndexRange::of(unknown[2]), f.u.cview(), f.v.cview(),
                                                         f.w.cview(), st, areas};
    const CView<R> T = f.T.cview();
    const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
    const auto& n = g.layout.n;
    const LevelLine ref_c = c.reference.on_centres(g, backend);
    const double hx = g.h[0], hy = g.h[1], Tb = T_bottom, Tt = T_top;
    const ZView<double> zd = g.z_view<double>(backend);
    *out = reduce(
        backend, Box{{0, 0, 0}, {n[0] + 1, n[1] + 1, n[2] + 1}}, DissipationSums{}, DissipationSumsOp{},
        [=] BOUSS_HD(int i, int j, int k) {
          const std::ptrdiff_t idx = i + j * sy + k * sz;
          DissipationSums s;
          const double dz = zd.zf[k + 1] - zd.zf[k], dzc = zd.zc[k] - zd.zc[k - 1];
          s.viscous = viscous_work(i, j, k, idx, dz, dzc);
          if (i < n[0] && j < n[1] && k < n[2]) {
            const double here = double(T[idx]);
            // Across x face i + 1 and y face j + 1: the difference over the centres' distance
            // (h on a uniform axis), times the face's control volume.
            const double gx = (double(T[idx + 1]) - here) / (hx * areas.x_across(i + 1));
            const double gy = (double(T[idx + sy]) - here) / (hy * areas.y_across(j + 1));
            s.thermal += (gx * gx * areas.u_face(i + 1, j) + gy * gy * areas.v_face(i, j + 1)) * dz;
            const double T_here = here + ref_c(k);
            const double a = areas.cell(i, j);
            if (k + 1 < n[2]) {
              const double up = zd.zc[k + 1] - zd.zc[k], gz = (double(T[idx + sz]) + ref_c(k + 1) - T_here) / up;
              s.thermal += gz * gz * up * a;
            } else {
              const double gz = (Tt - T_here) / (dz / 2);
              s.thermal += gz * gz * dz / 2 * a;
            }
            if (k == 0) {
              const double gz = (T_here - Tb) / (dz / 2);
              s.thermal += gz * gz * dz / 2 * a;
            }
          }
          return s;
        },
        "nusselt dissipation");
  }
};

template <class R>
DissipationSums dissipation_sums(const Grid& g, const FlowFields<R>& f, const Coefficients& c, double T_bottom,
                                 double T_top, const std::array<Box, 4>& unknown) {
  DissipationSums out;
  with_stencil<R>(g, f.T.backend(), DissipationSumsOf<R>{g, f, c, T_bottom, T_top, unknown, &out});
  return out;
}
}  // namespace

// The plate gradients and the heat flux of theta in R at each point, T_ref(z) added in
// double, the sums in double.
template <class R>
Nusselt nusselt_numbers(const Grid& g, const FlowFields<R>& f, const Coefficients& c, double T_bottom, double T_top,
                        const std::array<Box, 4>& unknown, bool exact_relations) {
  const Backend& backend = f.T.backend();
  const Stencil<R> st = make_stencil<R>(g, backend);
  const CView<R> w = f.w.cview(), T = f.T.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const auto& n = g.layout.n;
  const double H = g.length(2), dT = T_bottom - T_top, conductive = c.kappa * dT / H;
  const double plate_cells = double(g.global_n()[0]) * g.global_n()[1];
  const int top = n[2] - 1;
  // The wall distance of the centres next to each plate.
  const double half_bottom = g.dz(0) / 2, half_top = g.dz(top) / 2;
  // T - T_plate in the cells next to each plate is theta + (T_ref there - T_plate).
  const LevelLine centres = c.reference.on_centres(g, Backend::cpu()), faces = c.reference.on_zfaces(g, backend);
  const double below = centres(0) - T_bottom, above = T_top - centres(top);
  const ZView<R> z = st.z;
  // Each cell's share of the plate: its area over the mean cell's (1 on uniform x and y).
  const AreaWeights area = area_weights(g, backend);
  Nusselt nu;
  const double grad_bottom = reduce(backend, Box{{0, 0, 0}, {n[0], n[1], 1}}, 0.0, SumOp{},
                                    [=] BOUSS_HD(int i, int j, int) {
                                      return (double(T[i + j * sy]) + below) / half_bottom * area(i, j);
                                    }, "nusselt bottom") / plate_cells;
  const double grad_top = reduce(backend, Box{{0, 0, top}, {n[0], n[1], top + 1}}, 0.0, SumOp{},
                                 [=] BOUSS_HD(int i, int j, int k) {
                                   return (above - double(T[i + j * sy + k * sz])) / half_top * area(i, j);
                                 }, "nusselt top") / plate_cells;
  // The flux on each interior z face times the thickness of its control volume (the
  // distance between the centres it separates), over the domain's volume.
  const double wT = reduce(backend, Box{{0, 0, 1}, {n[0], n[1], n[2]}}, 0.0, SumOp{},
                           [=] BOUSS_HD(int i, int j, int k) {
                             const std::ptrdiff_t idx = i + j * sy + k * sz;
                             return (double(advective_heat_flux_at_zface(idx, k, w, T, st)) + double(w[idx]) * faces(k)) *
                                    (z.zc[k] - z.zc[k - 1]) * area(i, j);
                           }, "nusselt volume") / (plate_cells * H);
  nu.bottom = -c.kappa * grad_bottom / conductive;
  nu.top = -c.kappa * grad_top / conductive;
  nu.volume = 1 + wT / conductive;
  if (!exact_relations) return nu;
  const DissipationSums sums = dissipation_sums(g, f, c, T_bottom, T_top, unknown);
  const double hx = g.h[0], hy = g.h[1];
  const double dA = hx * hy, volume = plate_cells * dA * H;
  const double eps_u = c.nu * -sums.viscous * dA / volume, grad2 = sums.thermal * dA / volume;
  nu.kinetic_dissipation = 1 + eps_u * H / (c.b_T * c.kappa * dT);
  nu.thermal_dissipation = grad2 * H * H / (dT * dT);
  return nu;
}

#define BOUSS_FLOW(R)                                                                                              \
  template struct FlowFields<R>;                                                                                   \
  template void advance_ab2<R>(const Grid&, const Coefficients&, KernelScalar, KernelScalar, KernelScalar,         \
                               const FlowFields<R>&, FlowFields<R>&, FlowFields<R>&, const std::array<Box, 4>&);   \
  template void divergence<R>(const Grid&, const FlowFields<R>&, Field<R>&, KernelScalar);                        \
  template void subtract_gradient<R>(const Grid&, const Field<R>&, KernelScalar, FlowFields<R>&,                   \
                                     const std::array<Box, 4>&);                                                   \
  template double max_abs_divergence<R>(const Grid&, const FlowFields<R>&);                                       \
  template double kinetic_energy<R>(const Grid&, const FlowFields<R>&);                                           \
  template void state_rate_into<R>(const Grid&, const FlowFields<R>&, double*);                                   \
  template double max_abs_velocity<R>(const Grid&, const FlowFields<R>&);                                         \
  template Nusselt nusselt_numbers<R>(const Grid&, const FlowFields<R>&, const Coefficients&, double, double,    \
                                      const std::array<Box, 4>&, bool);
BOUSS_FLOW(double)
BOUSS_FLOW(float)
#undef BOUSS_FLOW

}  // namespace bouss
