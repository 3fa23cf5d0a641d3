// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/flow.hpp"

#include <cmath>
#include <string>

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "physics/operators_kernels.hpp"
#include "physics/stencil.hpp"

namespace bouss {

namespace {

constexpr const char* q_name(int component) { return component == 0 ? "u" : component == 1 ? "v" : "w"; }

template <int A>
void advance_velocity_component(const Grid& g, const Coefficients& c, Real dt, AB2Coefficients ab,
                                const FlowFields& now, Field<Real>& G, Field<Real>& next,
                                const Box& box) {
  const Stencil st = make_stencil(g);
  const CView u = now.u.cview(), v = now.v.cview(), w = now.w.cview(), T = now.T.cview();
  const CView q = now[A].cview();
  const View<Real> Gv = G.view(), out = next.view();
  const Real nu = c.nu, b_T = c.b_T, T_ref = c.T_ref, a = ab.a, b = ab.b;
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(now.u.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    Real tendency = -momentum_advection_at_face<A>(idx, u, v, w, st) + nu * laplacian(idx, q, st);
    if (A == 2) tendency += buoyancy_at_zface(idx, T, b_T, T_ref, st);
    const Real old = Gv[idx];
    Gv[idx] = tendency;
    out[idx] = q[idx] + dt * (a * tendency + b * old);
  }, "advance_ab2 (velocity)", q_name(A));
}

void advance_temperature(const Grid& g, const Coefficients& c, Real dt, AB2Coefficients ab,
                         const FlowFields& now, Field<Real>& G, Field<Real>& next, const Box& box) {
  const Stencil st = make_stencil(g);
  const CView u = now.u.cview(), v = now.v.cview(), w = now.w.cview(), T = now.T.cview();
  const View<Real> Gv = G.view(), out = next.view();
  const Real kappa = c.kappa, a = ab.a, b = ab.b;
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(now.T.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    const Real tendency = -advection_at_centre(idx, T, u, v, w, st) + kappa * laplacian(idx, T, st);
    const Real old = Gv[idx];
    Gv[idx] = tendency;
    out[idx] = T[idx] + dt * (a * tendency + b * old);
  }, "advance_ab2 (temperature)", "T");
}

}  // namespace

FlowFields FlowFields::make(const Backend& b, const Layout& L, const char* suffix) {
  const std::string s = suffix;
  return FlowFields{Field<Real>(b, L, Stagger::face_x, "u" + s), Field<Real>(b, L, Stagger::face_y, "v" + s),
                    Field<Real>(b, L, Stagger::face_z, "w" + s), Field<Real>(b, L, Stagger::centre, "T" + s)};
}

void advance_ab2(const Grid& g, const Coefficients& c, Real dt, AB2Coefficients ab,
                 const FlowFields& now, FlowFields& G, FlowFields& next,
                 const std::array<Box, 4>& unknown) {
  advance_velocity_component<0>(g, c, dt, ab, now, G.u, next.u, unknown[0]);
  advance_velocity_component<1>(g, c, dt, ab, now, G.v, next.v, unknown[1]);
  advance_velocity_component<2>(g, c, dt, ab, now, G.w, next.w, unknown[2]);
  advance_temperature(g, c, dt, ab, now, G.T, next.T, unknown[3]);
}

void divergence(const Grid& g, const FlowFields& f, Field<Real>& out, Real scale) {
  const Stencil st = make_stencil(g);
  const CView u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const View<Real> o = out.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(out.backend(), g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    o[idx] = scale * divergence_at_centre(idx, u, v, w, st);
  }, "divergence");
}

namespace {
template <int A>
void subtract_gradient_component(const Stencil& st, const Field<Real>& phi, Real dt, Field<Real>& q,
                                 const Box& box) {
  const CView p = phi.cview();
  const View<Real> out = q.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(q.backend(), box, [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    out[idx] -= dt * gradient_at_face<A>(idx, p, st);
  }, "subtract_gradient", q_name(A));
}
}  // namespace

void subtract_gradient(const Grid& g, const Field<Real>& phi, Real dt, FlowFields& f,
                       const std::array<Box, 4>& unknown) {
  const Stencil st = make_stencil(g);
  subtract_gradient_component<0>(st, phi, dt, f.u, unknown[0]);
  subtract_gradient_component<1>(st, phi, dt, f.v, unknown[1]);
  subtract_gradient_component<2>(st, phi, dt, f.w, unknown[2]);
}

Real max_abs_divergence(const Grid& g, const FlowFields& f) {
  const Stencil st = make_stencil(g);
  const CView u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  return reduce(f.u.backend(), g.layout.interior(Stagger::centre), Real(0), MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const Real d = divergence_at_centre(i + j * sy + k * sz, u, v, w, st);
                  return d < 0 ? -d : d;
                }, "max_abs_divergence");
}

Real kinetic_energy(const Grid& g, const FlowFields& f) {
  const Stencil st = make_stencil(g);
  const CView u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  const Real sum = reduce(f.u.backend(), g.layout.interior(Stagger::centre), Real(0), SumOp{},
                          [=] BOUSS_HD(int i, int j, int k) {
                            const std::ptrdiff_t idx = i + j * sy + k * sz;
                            const Real u0 = u[idx], u1 = u[idx + 1], v0 = v[idx], v1 = v[idx + sy];
                            const Real w0 = w[idx], w1 = w[idx + sz];
                            return Real(0.25) * (u0 * u0 + u1 * u1 + v0 * v0 + v1 * v1 + w0 * w0 + w1 * w1);
                          }, "kinetic_energy");
  return sum / Real(g.layout.cells());
}

void state_rate_into(const Grid& g, const FlowFields& f, Real* out) {
  const Stencil st = make_stencil(g);
  const CView u = f.u.cview(), v = f.v.cview(), w = f.w.cview(), T = f.T.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  reduce_into(f.u.backend(), g.layout.interior(Stagger::centre), Real(0), MaxOp{},
              [=] BOUSS_HD(int i, int j, int k) { return state_rate_at_centre(i + j * sy + k * sz, u, v, w, T, st); },
              out, "state check (advective rate, non-finite values)");
}

Real max_abs_velocity(const Grid& g, const FlowFields& f) {
  const CView u = f.u.cview(), v = f.v.cview(), w = f.w.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  return reduce(f.u.backend(), g.layout.interior(Stagger::centre), Real(0), MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  return fmax(fmax(fmax(fabs(u[idx]), fabs(u[idx + 1])), fmax(fabs(v[idx]), fabs(v[idx + sy]))),
                              fmax(fabs(w[idx]), fabs(w[idx + sz])));
                }, "max_abs_velocity");
}

Nusselt nusselt_numbers(const Grid& g, const FlowFields& f, Real kappa, Real T_bottom, Real T_top) {
  const Stencil st = make_stencil(g);
  const CView w = f.w.cview(), T = f.T.cview();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const auto& n = g.layout.n;
  const Real H = g.h[2] * n[2], dT = T_bottom - T_top, conductive = kappa * dT / H;
  const Real plate_cells = Real(n[0]) * n[1], half = g.h[2] / 2;
  const int top = n[2] - 1;
  Nusselt nu;
  const Real grad_bottom = reduce(f.T.backend(), Box{{0, 0, 0}, {n[0], n[1], 1}}, Real(0), SumOp{},
                                  [=] BOUSS_HD(int i, int j, int) { return (T[i + j * sy] - T_bottom) / half; },
                                  "nusselt bottom") / plate_cells;
  const Real grad_top = reduce(f.T.backend(), Box{{0, 0, top}, {n[0], n[1], top + 1}}, Real(0), SumOp{},
                               [=] BOUSS_HD(int i, int j, int k) { return (T_top - T[i + j * sy + k * sz]) / half; },
                               "nusselt top") / plate_cells;
  const Real wT = reduce(f.w.backend(), Box{{0, 0, 1}, {n[0], n[1], n[2]}}, Real(0), SumOp{},
                         [=] BOUSS_HD(int i, int j, int k) {
                           return advective_heat_flux_at_zface(i + j * sy + k * sz, w, T, st);
                         }, "nusselt volume") / Real(g.layout.cells());
  nu.bottom = -kappa * grad_bottom / conductive;
  nu.top = -kappa * grad_top / conductive;
  nu.volume = 1 + wT / conductive;
  return nu;
}

}  // namespace bouss
