// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/multigrid/multigrid.hpp"

#include <cmath>
#include <vector>

#include "grid/captured_work.hpp"
#include "grid/coarsening.hpp"
#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "grid/difference_kernels.hpp"
#include "grid/stencil.hpp"
#include "solver/multigrid/coarse_operator.hpp"
#include "solver/ghost_self.hpp"
#include "solver/multigrid/driver_impl.hpp"
#include "solver/multigrid/multigrid_kernels.hpp"

namespace bouss {

namespace {

template <class S>
LevelStencil<S> level_stencil(const Grid& g) {
  LevelStencil<S> st{};
  for (int a = 0; a < 3; ++a) {
    st.s[a] = g.layout.stride(a);
    st.rd2[a] = S(1 / (g.h[a] * g.h[a]));
    st.n[a] = g.layout.n[a];
  }
  return st;
}

// One colour of red-black Gauss-Seidel: cells with (i + j + k) % 2 == colour. `first_layer`:
// the first ghost layer across each cut face too (two-layer sweeps, solver/multigrid/hierarchy.hpp
// smooth), not the cells where two cut faces meet (the second colour reads none of them).
template <class S>
void relax_colour(const Grid& g, const Backend& be, Field<S>& x, const Field<S>& b, const GhostSelf<S>& self,
                  int colour, S omega, const FieldBC& bc, bool first_layer) {
  const LevelStencil<S> st = level_stencil<S>(g);
  const View<S> xv = x.view();
  const View<const S> bv = b.cview();
  const int nx = st.n[0], ny = st.n[1];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  int lo[2], hi[2];
  for (int a = 0; a < 2; ++a) {
    lo[a] = first_layer && bc.exchanged(2 * a) ? -1 : 0;
    hi[a] = st.n[a] + (first_layer && bc.exchanged(2 * a + 1) ? 1 : 0);
  }
  const int x0 = lo[0], x1 = hi[0];
  const Box half{{0, lo[1], 0}, {(x1 - x0 + 1) / 2, hi[1], st.n[2]}};
  // The colour of a cell is that of its global indices: a block whose first cell sits at an
  // odd offset (a grid cut over ranks) flips it, so that every decomposition sweeps the
  // cells of one rank's run in the same order.
  const int flip = (colour + g.offset()[0] + g.offset()[1]) & 1;
  for_each(be, half, [=] BOUSS_HD(int ih, int j, int k) {
    const int i = x0 + 2 * ih + ((j + k + flip + x0) & 1);
    if (i >= x1 || ((i < 0 || i >= nx) && (j < 0 || j >= ny))) return;
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    xv[idx] = gauss_seidel_value(i, j, k, idx, xv, bv, st, self, omega);
  }, "multigrid relax");
}

}  // namespace

// The point multigrid's level operator (solver/multigrid/hierarchy.hpp has the contract):
// red-black over-relaxed Gauss-Seidel cells, every even axis halved, the coarsest level
// solved by its dense inverse.
template <class S>
class PointRelaxation {
 public:
  using value_type = S;
  using Options = MultigridOptions;
  struct Work {};
  using Level = MultigridLevel<S, Work>;
  static constexpr const char* name = "mg";
  static constexpr bool fills_after_correction = false;
  static constexpr bool coarsest_on_the_ranks = false;  // solved whole, directly
  static constexpr bool relaxes_first_ghost_layer = true;  // a cell's update reads its face neighbours alone
  // Traffic: a sweep is two colour passes; colours alternate along x, so each pass moves
  // whole sectors of x (read and written) and of b although it updates half the cells. The
  // coarsest level: its residual (x, b, r) and the dense mat-vec.
  static constexpr int sweep_arrays = 6;
  static constexpr bool counts_gathered_levels = true;
  static double coarsest_bytes(double array, const Grid& g) {
    const double N = double(g.layout.cells());
    return 3 * array + N * N * sizeof(S);
  }

  static std::vector<std::array<int, 3>> shapes(const std::array<int, 3>& n) { return multigrid_levels(n); }
  // Whether level l runs on the host: a coarse level of a GPU run with at most
  // cpu_coarse_cells cells (paper 004, "Run small problems on the CPU").
  static bool on_host(const Backend& backend, const std::array<int, 3>& shape, std::size_t l, const Options& opt) {
    return l > 0 && backend.is_cuda() && cell_count(shape) <= opt.cpu_coarse_cells;
  }
  // The coarsest level's residual and dense inverse.
  static double level_bytes(double array, double cells, bool coarsest) {
    return coarsest ? array + cells * cells * sizeof(S) : 0;
  }
  static double gathered_bytes(const Layout&) { return 0; }

  explicit PointRelaxation(const Options& opt) : omega_(opt.omega) {}
  ~PointRelaxation() {
    if (matrix_) backend_.deallocate(matrix_);
  }
  PointRelaxation(const PointRelaxation&) = delete;
  PointRelaxation& operator=(const PointRelaxation&) = delete;

  void add_level(const Level& L, bool coarsest) {
    if (!coarsest) return;
    r_ = zeroed<S>(L.backend, L.grid, "mg r");
    const CoarseOperator op(L.grid, L.bc.homogeneous());
    std::vector<S> m(op.inverse().begin(), op.inverse().end());
    backend_ = L.backend;
    matrix_ = static_cast<S*>(backend_.allocate(m.size() * sizeof(S)));
    copy_bytes(matrix_, backend_, m.data(), Backend::cpu(), m.size() * sizeof(S));
  }
  void add_gathered(const Grid&, const Backend&) {}

  void relax(const Level& L, const GhostSelf<S>& self, int colour, bool first_layer) const {
    relax_colour(L.grid, L.backend, *L.x, *L.b, self, colour, S(omega_), L.bc, first_layer);
  }

  void restrict_residual(const Level& F, const Level& C, Field<S>& out) const {
    const LevelStencil<S> st = level_stencil<S>(F.grid);
    const View<const S> xv = F.x->cview(), bv = F.b->cview();
    const View<S> ov = out.view();
    const std::ptrdiff_t sy = C.grid.layout.sy, sz = C.grid.layout.sz;
    const int c0 = C.halved[0], c1 = C.halved[1], c2 = C.halved[2];
    for_each(F.backend, C.grid.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const int c[3] = {c0, c1, c2};
      const std::ptrdiff_t first = (i << c0) * st.s[0] + (j << c1) * st.s[1] + (k << c2) * st.s[2];
      ov[i + j * sy + k * sz] = bouss::restrict_residual(xv, bv, first, st, c);
    }, "multigrid restrict residual");
  }

  void restrict_rhs(const Grid& fine, const Grid& coarse, const Backend& be, const std::array<int, 3>& halved,
                    const Field<S>& b, Field<S>& out) const {
    const View<const S> bv = b.cview();
    const View<S> ov = out.view();
    const std::ptrdiff_t sf0 = 1, sf1 = fine.layout.sy, sf2 = fine.layout.sz;
    const std::ptrdiff_t sy = coarse.layout.sy, sz = coarse.layout.sz;
    const int c0 = halved[0], c1 = halved[1], c2 = halved[2];
    for_each(be, coarse.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const int c[3] = {c0, c1, c2};
      const std::ptrdiff_t s[3] = {sf0, sf1, sf2};
      ov[i + j * sy + k * sz] = restrict_average<S>(bv, (i << c0) * s[0] + (j << c1) * s[1] + (k << c2) * s[2], s, c);
    }, "multigrid restrict rhs");
  }

  void prolong(const Grid& fine, const Grid& coarse, const Backend& be, const std::array<int, 3>& halved,
               const Field<S>& e, Field<S>& x) const {
    const View<const S> ev = e.cview();
    const View<S> xv = x.view();
    const std::ptrdiff_t sc0 = 1, sc1 = coarse.layout.sy, sc2 = coarse.layout.sz;
    const std::ptrdiff_t sy = fine.layout.sy, sz = fine.layout.sz;
    const int c0 = halved[0], c1 = halved[1], c2 = halved[2];
    for_each(be, fine.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const int c[3] = {c0, c1, c2};
      const std::ptrdiff_t sc[3] = {sc0, sc1, sc2};
      xv[i + j * sy + k * sz] += prolong_trilinear<S>(ev, i, j, k, sc, c);
    }, "multigrid prolong");
  }

  void residual(const Level& F, Field<S>& r) const {
    const LevelStencil<S> st = level_stencil<S>(F.grid);
    const View<const S> xv = F.x->cview(), bv = F.b->cview();
    const View<S> rv = r.view();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    for_each(F.backend, F.grid.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const std::ptrdiff_t idx = i + j * sy + k * sz;
      rv[idx] = bv[idx] - laplacian7(idx, xv, st);
    }, "multigrid residual");
  }

  // x += M (b - lap x): exact whatever x holds (zero on coarse levels; the caller's
  // iterate when the fine grid is itself the coarsest). The mat-vec is one thread per cell,
  // a dense row each. Returns with ghosts filled.
  void solve_coarsest(const Level& C, bool) {
    residual(C, r_);
    const S* M = matrix_;
    const View<const S> rv = r_.cview();
    const View<S> xv = C.x->view();
    const int nx = C.grid.layout.n[0], ny = C.grid.layout.n[1], N = int(C.grid.layout.cells());
    const std::ptrdiff_t sy = C.grid.layout.sy, sz = C.grid.layout.sz;
    for_each(C.backend, Box{{0, 0, 0}, {N, 1, 1}}, [=] BOUSS_HD(int p, int, int) {
      S e = 0;
      for (int q = 0; q < N; ++q) {
        const int i = q % nx, t = q / nx;
        e += M[std::ptrdiff_t(p) * N + q] * rv[i + (t % ny) * sy + (t / ny) * sz];
      }
      const int i = p % nx, t = p / nx;
      xv[i + (t % ny) * sy + (t / ny) * sz] += e;
    }, "multigrid coarse solve");
    fill_ghosts(*C.x, C.bc, C.grid);
  }

  // The fine level in the fields' precision: uniform means, and the projection's Laplacian
  // (grid/stencil.hpp) on the fields' backend.
  static bool singular(const FieldBC& bc, const Options&) { return bc.singular(); }
  static double rhs_norm(const Grid& g, bool singular, Field<S>& b) {
    return singular ? remove_mean_max_abs(b) : max_abs(b, g.layout.interior(Stagger::centre));
  }
  // The residual in S at each cell, its max in double.
  static double residual_norm(const Grid& g, const Backend&, const Options&, const Field<S>& x, const Field<S>& b) {
    const Stencil<S> st = make_stencil<S>(g, x.backend());
    const CView<S> xv = x.cview(), bv = b.cview();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    return reduce(x.backend(), g.layout.interior(Stagger::centre), 0.0, MaxOp{},
                  [=] BOUSS_HD(int i, int j, int k) {
                    const std::ptrdiff_t idx = i + j * sy + k * sz;
                    return double(std::fabs(bv[idx] - laplacian<-1>(idx, i, j, k, xv, st)));
                  }, "multigrid residual norm");
  }
  // out = b - lap(x) in S, stored in out's precision T.
  template <class T>
  static void defect_into(const Grid& g, const Options&, const Field<S>& x, const Field<S>& b, Field<T>& out) {
    const Stencil<S> st = make_stencil<S>(g, x.backend());
    const CView<S> xv = x.cview(), bv = b.cview();
    const View<T> ov = out.view();
    const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
    for_each(x.backend(), g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const std::ptrdiff_t idx = i + j * sy + k * sz;
      ov[idx] = T(bv[idx] - laplacian<-1>(idx, i, j, k, xv, st));
    }, "multigrid defect");
  }
  static void remove_mean(const Grid&, Field<S>& x) { bouss::remove_mean(x); }

 private:
  double omega_;
  Field<S> r_;  // the coarsest level's residual
  Backend backend_;
  S* matrix_ = nullptr;  // the coarsest level's dense inverse, on backend_
};


template <class R>
Multigrid<R>::Multigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, MultigridOptions opt)
    : Driver(backend, fine, bc, opt) {
  means_ = static_cast<double*>(this->backend_.allocate(mean_slots * sizeof(double)));
}

template <class R>
Multigrid<R>::~Multigrid() { this->backend_.deallocate(means_); }

template <class R>
std::vector<typename Multigrid<R>::LevelPlan> Multigrid<R>::plan(const Backend& backend, const std::array<int, 3>& n,
                                                                 const MultigridOptions& opt) {
  std::vector<LevelPlan> out;
  const auto shapes = multigrid_levels(n);
  for (std::size_t l = 0; l < shapes.size(); ++l)
    out.push_back({shapes[l], PointRelaxation<R>::on_host(backend, shapes[l], l, opt)});
  return out;
}

template <class R>
std::pair<double, double> Multigrid<R>::estimate_memory(const Backend& backend, const Grid& fine,
                                                        const MultigridOptions& opt) {
  double on_backend = mean_slots * sizeof(double), on_host = 0;
  const std::size_t elem = fine.layout.elem_bytes;
  if (Driver::cheaper_cycles(opt)) {
    add_hierarchy_bytes<PointRelaxation<float>>(backend, fine, opt, elem, true, on_backend, on_host);
  } else {
    add_hierarchy_bytes<PointRelaxation<R>>(backend, fine, opt, elem, false, on_backend, on_host);
    if (opt.fmg) on_backend += 2 * double(fine.layout.size) * sizeof(R);  // defect, correction (at the first FMG)
  }
  return {on_backend, on_host};
}

template <class R>
double Multigrid<R>::bytes_per_cycle() const {
  const double cells = double(this->grid_.layout.cells());
  if (this->direct_) return this->direct_->vcycle_bytes(0) + 2 * cells * sizeof(R);  // + residual norm
  // defect in R stored as float, its norm, the correction added to x
  return this->cheap_->vcycle_bytes(0) + cells * (2 * sizeof(R) + 4) + cells * 4 +
         cells * (2 * sizeof(R) + 4);
}

template <class R>
double Multigrid<R>::bytes_fmg() const {
  const double cells = double(this->grid_.layout.cells());
  if (this->direct_) return this->direct_->fmg_bytes() + cells * 3 * sizeof(R) * 2 + 2 * cells * sizeof(R);
  return this->cheap_->fmg_bytes() - this->cheap_->vcycle_bytes(0) + bytes_per_cycle();
}

// Moved from the step's traffic model (model/flow_simulation.cpp): an FMG start replaces
// the convergence check before the first cycle.
template <class R>
double Multigrid<R>::bytes_per_solve(const SolveStats& s) const {
  const double cells = double(this->grid_.layout.cells()), means = mean_removal_arrays * cells * sizeof(R);
  if (!s.checked) {  // solve_passes: the cycles without their checks, the defect before each (mixed)
    const double defect = cells * (2 * sizeof(R) + 4);
    if (this->direct_) return s.cycles * this->direct_->vcycle_bytes(0) + means;
    return s.cycles * (this->cheap_->vcycle_bytes(0) + defect + defect) + means;
  }
  const int v_cycles = s.cycles - (s.fmg ? 1 : 0);
  return (s.fmg ? bytes_fmg() : 0) + (v_cycles + (s.fmg ? 0 : 1)) * bytes_per_cycle() + means;
}

// The checked solve's cycles without their residual norms, and the means taken out on the
// device (grid/field_ops.hpp remove_mean_queued): the same kernels in the same order, so the
// same x as a checked solve that took `passes` cycles.
template <class R>
SolveStats Multigrid<R>::solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) {
  (void)lent;
  const bool singular = this->bc_.singular();
  if (singular) remove_mean_max_abs_queued(b, means_);
  fill_ghosts(x, this->bc_, this->grid_);
  this->cycles(x, b, passes);
  if (singular) {
    remove_mean_queued(x, means_ + 3);
    fill_ghosts(x, this->bc_, this->grid_);
  }
  return SolveStats::unchecked(passes);
}

template <class R>
bool Multigrid<R>::fixed_passes_possible(const Backend& backend, const MultigridOptions& opt,
                                         const std::vector<LevelPlan>& levels) {
  // FMG's first cycle is not a V-cycle; host coarse levels of a GPU run read back every cycle.
  if (opt.fmg) return false;
  for (const LevelPlan& l : levels)
    if (backend.is_cuda() && l.on_host) return false;
  return true;
}

template <class R>
bool Multigrid<R>::solves_in_fixed_passes() const {
  // Under several ranks too: the means of solve_passes combine across them on the stream
  // (grid/field_ops.hpp), the levels gathered onto rank 0 go by the backend's messages. The
  // plan of the whole grid: rank 0's gathered levels must be on the device as well.
  return fixed_passes_possible(this->backend_, this->opt_, plan(this->backend_, this->grid_.global_n(), this->opt_));
}

template class MultigridDriver<PointRelaxation, MultigridOptions, double>;
template class MultigridDriver<PointRelaxation, MultigridOptions, float>;
template class Multigrid<double>;
template class Multigrid<float>;

double time_relaxations(const Backend& backend, int n, int sweeps, bool cuda_graph, int repeats) {
  const Grid g = Grid::make({n, n, n}, {0, 0, 0}, {1, 1, 1});
  FieldBC bc;
  bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0};
  Field<double> x(backend, g.layout, Stagger::centre, "x"), b(backend, g.layout, Stagger::centre, "b");
  fill(x, 0.5);
  fill(b, 1.0);
  g.z_view<double>(backend);  // made here: the first sweep may be inside a capture, where cudaMalloc may not run
  CapturedWork graph;
  auto work = [&] {
    smooth(g, x, bc, sweeps, false, [&](const GhostSelf<double>& self, int colour, bool) {
      relax_colour(g, backend, x, b, self, colour, 1.25, bc, false);
    });
  };
  return median_ms(backend, repeats, [&] { graph.run(backend, cuda_graph, 1, work); });  // warm-up captures
}

}  // namespace bouss
