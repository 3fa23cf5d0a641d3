// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/multigrid.hpp"

#include <cmath>

#include "grid/coarsening.hpp"
#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "solver/multigrid_kernels.hpp"

namespace bouss {

struct Multigrid::Level {
  Grid grid;
  Backend backend;
  Field<Real> x_own, b_own, r;  // level 0 uses the caller's x and b
  Field<Real>* x = nullptr;
  Field<Real>* b = nullptr;
  int halved[3] = {0, 0, 0};  // axes halved from the finer level to this one
  // When this level lives on another backend than its finer neighbour: mirrors of x and b
  // there, so restriction and prolongation run where the fine data is.
  Field<Real> x_mirror, b_mirror;
  bool mirrored = false;
};

namespace {

Stencil level_stencil(const Grid& g) {
  Stencil st{};
  for (int a = 0; a < 3; ++a) {
    st.s[a] = g.layout.stride(a);
    st.rd[a] = 1 / g.h[a];
    st.rd2[a] = 1 / (g.h[a] * g.h[a]);
  }
  return st;
}

// A periodic axis of one cell is its own neighbour on both sides (self = 1, which drops
// the axis from the update, as it drops out of the Laplacian).
GhostSelf ghost_self(const FieldBC& bc, const std::array<int, 3>& n) {
  GhostSelf g{};
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      const BoundaryKind k = bc.face[2 * a + side].kind;
      const signed char v = k == BoundaryKind::gradient ? 1
                            : k == BoundaryKind::value  ? -1
                            : n[a] == 1                 ? 1
                                                        : 0;
      (side ? g.hi : g.lo)[a] = v;
    }
  return g;
}

// One colour of red-black Gauss-Seidel: cells with (i + j + k) % 2 == colour.
void relax_colour(const Grid& g, const Backend& be, Field<Real>& x, const Field<Real>& b, const FieldBC& bc,
                  int colour, Real omega) {
  const Stencil st = level_stencil(g);
  const View<Real> xv = x.view();
  const CView bv = b.cview();
  const int nx = g.layout.n[0], ny = g.layout.n[1], nz = g.layout.n[2];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  const GhostSelf self = ghost_self(bc, g.layout.n);
  const Box half{{0, 0, 0}, {(nx + 1) / 2, ny, nz}};
  for_each(be, half, [=] BOUSS_HD(int ih, int j, int k) {
    const int i = 2 * ih + ((j + k + colour) & 1);
    if (i >= nx) return;
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    const int n[3] = {nx, ny, nz};
    xv[idx] = gauss_seidel_value(i, j, k, idx, xv, bv, st.s, st.rd2, n, self, omega);
  }, "multigrid relax");
}

void residual(const Grid& g, const Backend& be, const Field<Real>& x, const Field<Real>& b, Field<Real>& r) {
  const Stencil st = level_stencil(g);
  const CView xv = x.cview(), bv = b.cview();
  const View<Real> rv = r.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(be, g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    rv[idx] = bv[idx] - laplacian(idx, xv, st);
  }, "multigrid residual");
}

void restrict_to(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[3],
                 const Field<Real>& r, Field<Real>& bc) {
  const CView rv = r.cview();
  const View<Real> out = bc.view();
  const std::ptrdiff_t sf[3] = {1, fine.layout.sy, fine.layout.sz};
  const std::ptrdiff_t sy = coarse.layout.sy, sz = coarse.layout.sz;
  const int c0 = halved[0], c1 = halved[1], c2 = halved[2];
  for_each(be, coarse.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const int c[3] = {c0, c1, c2};
    const std::ptrdiff_t s[3] = {sf[0], sf[1], sf[2]};
    const std::ptrdiff_t first = (i << c0) * s[0] + (j << c1) * s[1] + (k << c2) * s[2];
    out[i + j * sy + k * sz] = restrict_average(rv, first, s, c);
  }, "multigrid restrict");
}

void prolong_add(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[3],
                 const Field<Real>& e, Field<Real>& x) {
  const CView ev = e.cview();
  const View<Real> xv = x.view();
  const std::ptrdiff_t scs[3] = {1, coarse.layout.sy, coarse.layout.sz};
  const std::ptrdiff_t sy = fine.layout.sy, sz = fine.layout.sz;
  const int c0 = halved[0], c1 = halved[1], c2 = halved[2];
  for_each(be, fine.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const int c[3] = {c0, c1, c2};
    const std::ptrdiff_t sc[3] = {scs[0], scs[1], scs[2]};
    xv[i + j * sy + k * sz] += prolong_trilinear(ev, i, j, k, sc, c);
  }, "multigrid prolong");
}

}  // namespace

Multigrid::Multigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, MultigridOptions opt)
    : backend_(backend), bc_(bc), hom_(bc.homogeneous()), opt_(opt) {
  const auto shapes = multigrid_levels(fine.layout.n);
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    auto L = std::make_unique<Level>();
    std::array<Real, 3> length{};
    for (int a = 0; a < 3; ++a) length[a] = fine.h[a] * fine.layout.n[a];
    L->grid = l == 0 ? fine : Grid::make(shapes[l], fine.lo, length, fine.layout.ghost);
    const bool host = l > 0 && backend.is_cuda() && cell_count(shapes[l]) <= opt_.cpu_coarse_cells;
    L->backend = host ? Backend::cpu() : backend;
    if (l > 0) {
      const Level& F = *levels_.back();
      for (int a = 0; a < 3; ++a) L->halved[a] = shapes[l][a] != shapes[l - 1][a];
      L->x_own = Field<Real>(L->backend, L->grid.layout, Stagger::centre, "mg x");
      L->b_own = Field<Real>(L->backend, L->grid.layout, Stagger::centre, "mg b");
      L->x = &L->x_own;
      L->b = &L->b_own;
      fill(*L->x, 0);
      fill(*L->b, 0);
      L->mirrored = L->backend != F.backend;
      if (L->mirrored) {
        L->x_mirror = Field<Real>(F.backend, L->grid.layout, Stagger::centre, "mg x mirror");
        L->b_mirror = Field<Real>(F.backend, L->grid.layout, Stagger::centre, "mg b mirror");
      }
    }
    L->r = Field<Real>(L->backend, L->grid.layout, Stagger::centre, "mg r");
    fill(L->r, 0);
    levels_.push_back(std::move(L));
  }
  coarse_ = CoarseSolver(levels_.back()->grid, hom_);
}

Multigrid::~Multigrid() = default;

const Grid& Multigrid::level_grid(int l) const { return levels_[l]->grid; }
bool Multigrid::level_on_host(int l) const { return !levels_[l]->backend.is_cuda(); }

void Multigrid::smooth(Level& L, int sweeps) {
  const FieldBC& bc = &L == levels_[0].get() ? bc_ : hom_;
  for (int s = 0; s < sweeps; ++s) {
    fill_ghosts(*L.x, bc, L.grid.h);
    relax_colour(L.grid, L.backend, *L.x, *L.b, bc, 0, opt_.omega);
    fill_ghosts(*L.x, bc, L.grid.h);
    relax_colour(L.grid, L.backend, *L.x, *L.b, bc, 1, opt_.omega);
  }
  fill_ghosts(*L.x, bc, L.grid.h);
}

// Solves for the correction e with lap(e) = b - lap(x) under homogeneous conditions and
// adds it: exact whatever x holds on entry (zero on coarse levels; the caller's iterate
// when the fine grid is itself the coarsest).
void Multigrid::coarse_solve(Level& L) {
  residual(L.grid, L.backend, *L.x, *L.b, L.r);
  const std::vector<Real> r = L.r.to_host();
  std::vector<Real> x = L.x->to_host();
  std::vector<Real> e(r.size(), 0);
  coarse_.solve(r.data(), e.data());
  for (std::size_t p = 0; p < x.size(); ++p) x[p] += e[p];  // ghosts are refilled below
  L.x->from_host(x);
  fill_ghosts(*L.x, &L == levels_[0].get() ? bc_ : hom_, L.grid.h);
}

void Multigrid::vcycle(int l) {
  Level& L = *levels_[l];
  if (l + 1 == int(levels_.size())) {
    coarse_solve(L);
    return;
  }
  Level& C = *levels_[l + 1];
  smooth(L, opt_.pre_sweeps);
  residual(L.grid, L.backend, *L.x, *L.b, L.r);
  if (C.mirrored) {
    restrict_to(L.grid, C.grid, L.backend, C.halved, L.r, C.b_mirror);
    C.b->copy_from(C.b_mirror);
  } else {
    restrict_to(L.grid, C.grid, L.backend, C.halved, L.r, *C.b);
  }
  fill(*C.x, 0);
  vcycle(l + 1);  // returns with C.x's ghosts filled
  if (C.mirrored) {
    C.x_mirror.copy_from(*C.x);
    prolong_add(L.grid, C.grid, L.backend, C.halved, C.x_mirror, *L.x);
  } else {
    prolong_add(L.grid, C.grid, L.backend, C.halved, *C.x, *L.x);
  }
  smooth(L, opt_.post_sweeps);
}

Real Multigrid::residual_norm(const Field<Real>& x, const Field<Real>& b) const {
  const Grid& g = levels_[0]->grid;
  const Stencil st = level_stencil(g);
  const CView xv = x.cview(), bv = b.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  return reduce(x.backend(), g.layout.interior(Stagger::centre), Real(0), MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  return fabs(bv[idx] - laplacian(idx, xv, st));
                }, "multigrid residual norm");
}

SolveStats Multigrid::solve(Field<Real>& x, Field<Real>& b, Real tolerance) {
  Level& F = *levels_[0];
  F.x = &x;
  F.b = &b;
  const bool singular = bc_.singular();
  if (singular) remove_mean(b);
  SolveStats stats;
  const Real bnorm = max_abs(b, F.grid.layout.interior(Stagger::centre));
  if (bnorm == 0 && singular) {  // the solution is a constant: zero mean
    fill(x, 0);
    stats.converged = true;
    stats.residual_history.push_back(0);
    return stats;
  }
  const Real scale = bnorm > 0 ? bnorm : Real(1);
  fill_ghosts(x, bc_, F.grid.h);
  Real rn = residual_norm(x, b);
  stats.residual_history.push_back(rn / scale);
  while (rn > tolerance * scale && stats.cycles < opt_.max_cycles) {
    vcycle(0);
    rn = residual_norm(x, b);
    stats.residual_history.push_back(rn / scale);
    ++stats.cycles;
    if (!std::isfinite(rn)) break;
  }
  if (singular) {
    remove_mean(x);
    fill_ghosts(x, bc_, F.grid.h);
  }
  stats.converged = rn <= tolerance * scale;
  return stats;
}

}  // namespace bouss
