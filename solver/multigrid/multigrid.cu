// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/multigrid/multigrid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "grid/captured_work.hpp"
#include "grid/coarsening.hpp"
#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "grid/difference_kernels.hpp"
#include "grid/stencil.hpp"
#include "solver/multigrid/coarse_operator.hpp"
#include "solver/multigrid/gathered_level.hpp"
#include "solver/ghost_self.hpp"
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

// One colour of red-black Gauss-Seidel: cells with (i + j + k) % 2 == colour.
template <class S>
void relax_colour(const Grid& g, const Backend& be, Field<S>& x, const Field<S>& b, const GhostSelf<S>& self,
                  int colour, S omega) {
  const LevelStencil<S> st = level_stencil<S>(g);
  const View<S> xv = x.view();
  const View<const S> bv = b.cview();
  const int nx = st.n[0];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  const Box half{{0, 0, 0}, {(nx + 1) / 2, st.n[1], st.n[2]}};
  // The colour of a cell is that of its global indices: a block whose first cell sits at an
  // odd offset (a grid cut over ranks) flips it, so that every decomposition sweeps the
  // cells of one rank's run in the same order.
  const int flip = (colour + g.offset()[0] + g.offset()[1]) & 1;
  for_each(be, half, [=] BOUSS_HD(int ih, int j, int k) {
    const int i = 2 * ih + ((j + k + flip) & 1);
    if (i >= nx) return;
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    xv[idx] = gauss_seidel_value(i, j, k, idx, xv, bv, st, self, omega);
  }, "multigrid relax");
}

// `sweeps` red-black sweeps; returns with x's ghosts filled. The sweeps read no ghosts
// (walls folded in, even periodic axes wrapped) except along a periodic axis of odd length
// and across the cuts between ranks. `x_zero`: x is zero, ghosts included, under homogeneous
// conditions (a coarse level's correction just cleared), so its ghosts need no first fill
// (under ranks, one exchange fewer).
template <class S>
void smooth(const Grid& g, const Backend& be, Field<S>& x, const Field<S>& b, const FieldBC& bc, int sweeps,
            double omega, bool x_zero = false) {
  const GhostSelf<S> self = ghost_self<S>(bc, g);
  const bool fills = sweeps_read_ghosts(self);
  for (int s = 0; s < sweeps; ++s) {
    if (fills && !(s == 0 && x_zero)) fill_ghosts(x, bc, g);
    relax_colour(g, be, x, b, self, 0, S(omega));
    if (fills) fill_ghosts(x, bc, g);
    relax_colour(g, be, x, b, self, 1, S(omega));
  }
  fill_ghosts(x, bc, g);
}

template <class S>
void restrict_residual_to(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[3],
                          const Field<S>& x, const Field<S>& b, Field<S>& out) {
  const LevelStencil<S> st = level_stencil<S>(fine);
  const View<const S> xv = x.cview(), bv = b.cview();
  const View<S> ov = out.view();
  const std::ptrdiff_t sy = coarse.layout.sy, sz = coarse.layout.sz;
  const int c0 = halved[0], c1 = halved[1], c2 = halved[2];
  for_each(be, coarse.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const int c[3] = {c0, c1, c2};
    const std::ptrdiff_t first = (i << c0) * st.s[0] + (j << c1) * st.s[1] + (k << c2) * st.s[2];
    ov[i + j * sy + k * sz] = restrict_residual(xv, bv, first, st, c);
  }, "multigrid restrict residual");
}

template <class S>
void restrict_rhs_to(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[3],
                     const Field<S>& b, Field<S>& out) {
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

template <class S>
void prolong_add(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[3], const Field<S>& e,
                 Field<S>& x) {
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

template <class S>
void residual_into(const Grid& g, const Backend& be, const Field<S>& x, const Field<S>& b, Field<S>& r) {
  const LevelStencil<S> st = level_stencil<S>(g);
  const View<const S> xv = x.cview(), bv = b.cview();
  const View<S> rv = r.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(be, g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    rv[idx] = bv[idx] - laplacian7(idx, xv, st);
  }, "multigrid residual");
}

// x += M r on the coarsest level: one thread per cell, a dense row each.
template <class S>
void coarse_matvec(const Grid& g, const Backend& be, const S* M, const Field<S>& r, Field<S>& x) {
  const View<const S> rv = r.cview();
  const View<S> xv = x.view();
  const int nx = g.layout.n[0], ny = g.layout.n[1], N = int(g.layout.cells());
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  for_each(be, Box{{0, 0, 0}, {N, 1, 1}}, [=] BOUSS_HD(int p, int, int) {
    S e = 0;
    for (int q = 0; q < N; ++q) {
      const int i = q % nx, t = q / nx;
      e += M[std::ptrdiff_t(p) * N + q] * rv[i + (t % ny) * sy + (t / ny) * sz];
    }
    const int i = p % nx, t = p / nx;
    xv[i + (t % ny) * sy + (t / ny) * sz] += e;
  }, "multigrid coarse solve");
}

// out = b - lap(x) in x's precision R, stored in out's precision.
template <class R, class S>
void defect_into(const Grid& g, const Field<R>& x, const Field<R>& b, Field<S>& out) {
  const Stencil<R> st = make_stencil<R>(g, x.backend());
  const CView<R> xv = x.cview(), bv = b.cview();
  const View<S> ov = out.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(x.backend(), g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    ov[idx] = S(bv[idx] - laplacian<false>(idx, k, xv, st));
  }, "multigrid defect");
}

}  // namespace

namespace {
// Whether level l runs on the host: a coarse level of a GPU run with at most
// cpu_coarse_cells cells (paper 004, "Run small problems on the CPU").
bool level_runs_on_host(const Backend& backend, const std::array<int, 3>& shape, std::size_t l,
                        const MultigridOptions& opt) {
  return l > 0 && backend.is_cuda() && cell_count(shape) <= opt.cpu_coarse_cells;
}

// How many levels, finest first, stay cut over the ranks of a grid cut over several: the
// finest, then each coarser one whose blocks halve within their rank into blocks of at least
// agglomerate_below cells along each cut axis, never the coarsest (solved whole, directly).
// The levels below are gathered onto rank 0 (agglomeration). Every level on one rank.
int levels_on_the_ranks(const Grid& fine, const MultigridOptions& opt) {
  const auto shapes = multigrid_levels(fine.global_n());
  if (!fine.decomposition || fine.decomposition->ranks() == 1) return int(shapes.size());
  if (shapes.size() < 2) throw std::logic_error("multigrid: a grid cut over ranks that does not coarsen");
  return fine.decomposition->levels_within_ranks(shapes, opt.agglomerate_below, int(shapes.size()) - 1);
}

// Bytes a hierarchy of element type S allocates, on the fine grid's backend and on the
// host; follows the constructor below allocation by allocation (the unit test
// Multigrid.MemoryEstimateIsWhatItAllocates holds them together).
template <class S>
void add_hierarchy_bytes(const Backend& backend, const Grid& fine, const MultigridOptions& opt, bool own_level0,
                         double& on_backend, double& on_host) {
  const auto shapes = multigrid_levels(fine.global_n());
  const int kept = levels_on_the_ranks(fine, opt);
  const bool gathers = kept < int(shapes.size());
  std::unique_ptr<Decomposition> block = fine.decomposition ? std::make_unique<Decomposition>(*fine.decomposition) : nullptr;
  bool previous_on_host = false;
  for (int l = 0; l < kept; ++l) {
    if (l > 0 && block) {
      std::array<int, 3> halved{};
      for (int a = 0; a < 3; ++a) halved[a] = shapes[l][a] != shapes[l - 1][a];
      *block = block->coarsened(halved);
    }
    const std::array<int, 3> n = block ? block->n : shapes[l];
    const bool host = !gathers && level_runs_on_host(backend, shapes[l], l, opt);
    // Level 0 shares the fine fields' layout; the coarser levels are laid out for S.
    const std::size_t elem = l == 0 ? fine.layout.elem_bytes : sizeof(S);
    const double array = double(Layout::make(n, fine.layout.ghost, elem).size) * sizeof(S);
    double& here = host ? on_host : on_backend;
    if (l > 0 || own_level0) here += 2 * array;      // x, b
    if (l > 0 && host && !previous_on_host) on_backend += 2 * array;  // the device mirrors of x, b
    // The level's z tables where it runs and on the backend (level 0 shares the fine grid's
    // on the backend).
    const double tables = z_table_bytes(Layout::make(n, fine.layout.ghost, elem));
    if (l > 0 || host) here += tables;
    if (l > 0 && host && backend.is_cuda()) on_backend += tables;
    if (l + 1 == int(shapes.size())) {
      const double N = double(cell_count(shapes[l]));
      here += array + N * N * sizeof(S);  // r and the dense coarse inverse
    }
    if (l + 1 == kept && gathers) {
      on_backend += array;  // the residual and correction of the last level on the ranks
      if (backend.ranks().rank() == 0) {  // the whole of that level, and the levels gathered below it
        on_backend += double(Layout::make(shapes[l], fine.layout.ghost, elem).size) * sizeof(S);
        const Grid tail = fine.level(shapes[l + 1], sizeof(S));
        on_backend += z_table_bytes(tail.layout);  // its first level is a grid of its own, with its z tables
        add_hierarchy_bytes<S>(backend.with_ranks(Communicator::self()), tail, opt, true, on_backend, on_host);
      }
    }
    previous_on_host = host;
  }
}
}  // namespace

// The levels of one precision and the cycles over them. On a grid cut over ranks the first
// levels (levels_on_the_ranks) are the ranks' blocks, with the pressure's conditions
// exchanging halos across the cuts; the residual of the last of them is gathered onto rank 0,
// which cycles the coarser levels as a hierarchy of the whole grid (tail_: its own host
// levels and graphs) and scatters the correction back.
template <class S>
class MultigridHierarchy {
 public:
  struct Level {
    Grid grid;
    Backend backend;
    FieldBC bc;  // the problem's on level 0, homogeneous below
    Field<S> x_own, b_own, r;
    Field<S>* x = nullptr;
    Field<S>* b = nullptr;
    int halved[3] = {0, 0, 0};  // axes halved from the finer level to this one
    // When this level lives on the host below a device level: mirrors of x and b on the
    // device, so that restriction and prolongation run where the fine data is.
    Field<S> x_mirror, b_mirror;
    bool mirrored = false;
  };

  MultigridHierarchy(const Backend& backend, const Grid& fine, const FieldBC& bc, const MultigridOptions& opt,
                     bool own_level0)
      : backend_(backend), bc_(bc), hom_(bc.homogeneous()), opt_(opt) {
    const auto shapes = multigrid_levels(fine.global_n());
    const int kept = levels_on_the_ranks(fine, opt);
    gathers_ = kept < int(shapes.size());
    for (int l = 0; l < kept; ++l) {
      auto L = std::make_unique<Level>();
      if (l == 0) {
        L->grid = fine;
      } else {
        const Grid& above = levels_.back()->grid;
        std::array<int, 3> halved{};
        for (int a = 0; a < 3; ++a) halved[a] = shapes[l][a] != shapes[l - 1][a];
        std::unique_ptr<Decomposition> block;
        if (above.decomposition) block = std::make_unique<Decomposition>(above.decomposition->coarsened(halved));
        L->grid = fine.level(shapes[l], sizeof(S), block.get());
      }
      // Levels cut over ranks stay on the ranks' backend (their halos are exchanged there).
      const bool host = !gathers_ && level_runs_on_host(backend, shapes[l], l, opt);
      L->backend = host ? Backend::cpu_pinned() : backend;
      L->bc = l == 0 ? bc : hom_;
      // The level's z tables on both backends now: a ghost fill inside a captured graph
      // must not allocate.
      L->grid.template z_view<S>(L->backend);
      L->grid.template z_view<S>(backend);
      if (l > 0 || own_level0) {
        L->x_own = Field<S>(L->backend, L->grid.layout, Stagger::centre, "mg x");
        L->b_own = Field<S>(L->backend, L->grid.layout, Stagger::centre, "mg b");
        fill(L->x_own, 0);
        fill(L->b_own, 0);
        L->x = &L->x_own;
        L->b = &L->b_own;
      }
      if (l > 0) {
        const Level& F = *levels_.back();
        for (int a = 0; a < 3; ++a) L->halved[a] = shapes[l][a] != shapes[l - 1][a];
        L->mirrored = L->backend != F.backend;
        if (L->mirrored) {
          L->x_mirror = Field<S>(F.backend, L->grid.layout, Stagger::centre, "mg x mirror");
          L->b_mirror = Field<S>(F.backend, L->grid.layout, Stagger::centre, "mg b mirror");
          fill(L->x_mirror, 0);
          fill(L->b_mirror, 0);
        }
      }
      levels_.push_back(std::move(L));
    }
    first_host_ = int(levels_.size());
    for (int l = 0; l < int(levels_.size()); ++l)
      if (levels_[l]->backend != backend_) {
        first_host_ = l;
        break;
      }
    if (gathers_) {
      gathered_ = GatheredLevel<S>(backend_, levels_.back()->grid, "mg");
      for (int a = 0; a < 3; ++a) tail_halved_[a] = shapes[kept][a] != shapes[kept - 1][a];
      if (gathered_.on_root())
        tail_ = std::make_unique<MultigridHierarchy<S>>(backend_.with_ranks(Communicator::self()),
                                                        fine.level(shapes[kept], sizeof(S)), hom_.whole(), opt, true);
      return;
    }
    Level& C = *levels_.back();
    C.r = Field<S>(C.backend, C.grid.layout, Stagger::centre, "mg r");
    fill(C.r, 0);
    const CoarseOperator op(C.grid, hom_);
    std::vector<S> m(op.inverse().begin(), op.inverse().end());
    coarse_bytes_ = m.size() * sizeof(S);
    coarse_matrix_ = static_cast<S*>(C.backend.allocate(coarse_bytes_));
    copy_bytes(coarse_matrix_, C.backend, m.data(), Backend::cpu(), coarse_bytes_);
  }
  ~MultigridHierarchy() {
    if (coarse_matrix_) levels_.back()->backend.deallocate(coarse_matrix_);
  }

  // Level 0's x and b: the caller's fields (when not owned); `homogeneous` when they hold
  // a correction and a defect rather than the problem itself.
  void attach(Field<S>& x, Field<S>& b, bool homogeneous) {
    levels_[0]->x = &x;
    levels_[0]->b = &b;
    levels_[0]->bc = homogeneous ? hom_ : bc_;
  }
  Field<S>& x0() { return *levels_[0]->x; }
  Field<S>& b0() { return *levels_[0]->b; }
  int levels() const { return int(levels_.size()); }
  const Level& level(int l) const { return *levels_[l]; }

  void vcycle() { vcycle_from(0); }

  // Full multigrid: x0 <- an approximation of lap(x0) = b0 to discretization accuracy,
  // from b0 alone (x0's content is discarded).
  void fmg() {
    const int L = levels() - 1;  // the coarsest level here (on the ranks, when they gather)
    for (int l = 0; l < L; ++l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      if (C.mirrored) {
        restrict_rhs_to(F.grid, C.grid, F.backend, C.halved, *F.b, C.b_mirror);
        C.b->copy_from(C.b_mirror);
      } else {
        restrict_rhs_to(F.grid, C.grid, F.backend, C.halved, *F.b, *C.b);
      }
    }
    if (gathers_) {  // the levels below, gathered: their FMG, then a V-cycle here
      gather_to_tail(*levels_[L]->b, false);
      if (tail_) tail_->fmg();
      fill(*levels_[L]->x, 0);
      correct_from_tail();
      vcycle_from(L);
    } else {
      fill(*levels_[L]->x, 0);
      coarse_solve();
    }
    for (int l = L - 1; l >= 0; --l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      fill(*F.x, 0);
      if (C.mirrored) {
        C.x_mirror.copy_from(*C.x);
        prolong_add(F.grid, C.grid, F.backend, C.halved, C.x_mirror, *F.x);
      } else {
        prolong_add(F.grid, C.grid, F.backend, C.halved, *C.x, *F.x);
      }
      vcycle_from(l);
    }
  }

  // Traffic model: arrays of one level counted once per pass that reads or writes them.
  double vcycle_bytes(int l0) const {
    double bytes = 0;
    for (int l = l0; l + 1 < levels(); ++l) {
      const double F = array_bytes(l), C = array_bytes(l + 1);
      // A sweep is two colour passes; colours alternate along x, so each pass moves whole
      // sectors of x (read and written) and of b although it updates half the cells: 6F.
      bytes += (opt_.pre_sweeps + opt_.post_sweeps) * 6 * F
               + 2 * F + C                                    // residual-restriction: read x, b; write coarse b
               + C                                            // zero the coarse x
               + C + 2 * F;                                   // prolongation: read coarse x, read+write x
    }
    if (gathers_) {  // the last level here: its sweeps, residual, gather, correction added
      const double F = array_bytes(levels() - 1);
      return bytes + (opt_.pre_sweeps + opt_.post_sweeps) * 6 * F + 3 * F + F + 3 * F +
             (tail_ ? 2 * double(gathered_.whole_grid().layout.cells()) * sizeof(S) + tail_->vcycle_bytes(0) : 0);
    }
    const double N = double(levels_.back()->grid.layout.cells());
    return bytes + 3 * array_bytes(levels() - 1) + N * N * sizeof(S);
  }
  double fmg_bytes() const {
    double bytes = 0;
    for (int l = 0; l + 1 < levels(); ++l) bytes += array_bytes(l) + array_bytes(l + 1);  // restrict b
    for (int l = levels() - 2; l >= 0; --l)
      bytes += array_bytes(l) + array_bytes(l + 1) + 2 * array_bytes(l) + vcycle_bytes(l);
    return bytes;
  }

 private:
  double array_bytes(int l) const { return double(levels_[l]->grid.layout.cells()) * sizeof(S); }

  std::uintptr_t key(int segment, int l0) const {
    const auto x = reinterpret_cast<std::uintptr_t>(levels_[0]->x->data());
    const auto b = reinterpret_cast<std::uintptr_t>(levels_[0]->b->data());
    return (x * 1000003u) ^ (b * 7919u) ^ (std::uintptr_t(segment) << 60) ^ (std::uintptr_t(l0) << 52);
  }

  void vcycle_from(int l0) {
    const int L = levels() - 1;
    const bool graphs = opt_.cuda_graphs && backend_.is_cuda();
    if (gathers_) {  // graphs where the messages go by NCCL (grid/captured_work.hpp)
      Level& F = *levels_[L];
      graphs_.run(backend_, graphs, key(3, l0), [&] {
        down(l0, L);
        smooth(F.grid, F.backend, *F.x, *F.b, F.bc, opt_.pre_sweeps, opt_.omega, cleared(L, l0));
        residual_into(F.grid, F.backend, *F.x, *F.b, gathered_.boundary());
      });
      gather_to_tail(gathered_.boundary(), true);
      if (tail_) tail_->vcycle();
      correct_from_tail();
      graphs_.run(backend_, graphs, key(4, l0), [&] {
        smooth(F.grid, F.backend, *F.x, *F.b, F.bc, opt_.post_sweeps, opt_.omega);
        up(L, l0);
      });
      return;
    }
    if (l0 == L) {
      coarse_solve();
      return;
    }
    if (!backend_.is_cuda() || l0 >= first_host_) {
      down(l0, L);
      coarse_solve();
      up(L, l0);
    } else if (first_host_ > L) {  // every level on the device: one graph
      graphs_.run(backend_, graphs, key(0, l0), [&] {
        down(l0, L);
        coarse_solve();
        up(L, l0);
      });
    } else {  // device levels down to m - 1, then the host levels, then back up
      const int m = first_host_;
      graphs_.run(backend_, graphs, key(1, l0), [&] { down(l0, m); });
      backend_.synchronize();  // the restricted residual has arrived on the host
      fill(*levels_[m]->x, 0);
      down(m, L);
      coarse_solve();
      up(L, m);
      graphs_.run(backend_, graphs, key(2, l0), [&] { up(m, l0); });
    }
  }

  // Pre-smoothing and restriction from level `from` down to level `to`. Stream-ordered
  // device work only, where `from` is on the device (it may be graph-captured).
  void down(int from, int to) {
    for (int l = from; l < to; ++l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      smooth(F.grid, F.backend, *F.x, *F.b, F.bc, opt_.pre_sweeps, opt_.omega, cleared(l, from));
      if (C.mirrored) {
        restrict_residual_to(F.grid, C.grid, F.backend, C.halved, *F.x, *F.b, C.b_mirror);
        copy_bytes_async(C.b->data(), C.backend, C.b_mirror.data(), F.backend, C.b->bytes());
      } else {
        restrict_residual_to(F.grid, C.grid, F.backend, C.halved, *F.x, *F.b, *C.b);
        fill(*C.x, 0);
      }
    }
  }

  // Whether down(from, ...) found level l's x cleared (zero, ghosts included): a level below
  // `from` that is not a host mirror (those are cleared by their caller, not here).
  bool cleared(int l, int from) const { return l > from && !levels_[l]->mirrored; }

  // Prolongation and post-smoothing from level `from` up to level `to`.
  void up(int from, int to) {
    for (int l = from - 1; l >= to; --l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      if (C.mirrored) {
        copy_bytes_async(C.x_mirror.data(), F.backend, C.x->data(), C.backend, C.x->bytes());
        prolong_add(F.grid, C.grid, F.backend, C.halved, C.x_mirror, *F.x);
      } else {
        prolong_add(F.grid, C.grid, F.backend, C.halved, *C.x, *F.x);
      }
      smooth(F.grid, F.backend, *F.x, *F.b, F.bc, opt_.post_sweeps, opt_.omega);
    }
  }

  // x += M (b - lap x): exact whatever x holds (zero on coarse levels; the caller's
  // iterate when the fine grid is itself the coarsest). Returns with ghosts filled.
  void coarse_solve() {
    Level& C = *levels_.back();
    residual_into(C.grid, C.backend, *C.x, *C.b, C.r);
    coarse_matvec(C.grid, C.backend, coarse_matrix_, C.r, *C.x);
    fill_ghosts(*C.x, C.bc, C.grid);
  }

  // The values v of the last level on the ranks (its residual, or its right-hand side in
  // FMG), restricted whole onto rank 0 as the first gathered level's b, whose x starts at 0
  // (as a single rank's V-cycle restricts them). Collective.
  void gather_to_tail(const Field<S>& v, bool zero_x) {
    gathered_.gather(v);
    if (!tail_) return;
    Field<S>& whole = gathered_.whole();
    restrict_rhs_to(gathered_.whole_grid(), tail_->level(0).grid, whole.backend(), tail_halved_, whole, tail_->b0());
    if (zero_x) fill(tail_->x0(), 0);
  }
  // x of the last level on the ranks += the gathered levels' correction, prolonged on rank 0
  // and scattered (x + (0 + P e): the bits of a single rank's x + P e). Collective.
  void correct_from_tail() {
    if (tail_) {
      Field<S>& whole = gathered_.whole();
      fill(whole, 0);
      prolong_add(gathered_.whole_grid(), tail_->level(0).grid, whole.backend(), tail_halved_, tail_->x0(), whole);
    }
    gathered_.scatter_add(*levels_.back()->x);
  }

  Backend backend_;
  FieldBC bc_, hom_;
  MultigridOptions opt_;
  std::vector<std::unique_ptr<Level>> levels_;
  // Under several ranks: whether levels are gathered below the last one here; the last
  // level gathered (its residual and correction; on rank 0 that level whole) and, on rank
  // 0, the hierarchy of the gathered levels.
  bool gathers_ = false;
  GatheredLevel<S> gathered_;
  int tail_halved_[3] = {0, 0, 0};
  std::unique_ptr<MultigridHierarchy<S>> tail_;
  int first_host_ = 0;
  S* coarse_matrix_ = nullptr;
  std::size_t coarse_bytes_ = 0;
  CapturedWork graphs_{true};  // halo exchanges, no reductions: captured under ranks too (NCCL)
};

template <class R>
Multigrid<R>::Multigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, MultigridOptions opt)
    : backend_(backend), grid_(fine), bc_(bc), opt_(opt) {
  if (cheaper_cycles(opt_))
    cheap_ = std::make_unique<MultigridHierarchy<float>>(backend, fine, bc.homogeneous(), opt_, true);
  else
    direct_ = std::make_unique<MultigridHierarchy<R>>(backend, fine, bc, opt_, false);
  means_ = static_cast<double*>(backend_.allocate(mean_slots * sizeof(double)));
}

template <class R>
Multigrid<R>::~Multigrid() { backend_.deallocate(means_); }

template <class R>
std::vector<typename Multigrid<R>::LevelPlan> Multigrid<R>::plan(const Backend& backend, const std::array<int, 3>& n,
                                                                 const MultigridOptions& opt) {
  std::vector<LevelPlan> out;
  const auto shapes = multigrid_levels(n);
  for (std::size_t l = 0; l < shapes.size(); ++l) out.push_back({shapes[l], level_runs_on_host(backend, shapes[l], l, opt)});
  return out;
}

template <class R>
int Multigrid<R>::levels_on_the_ranks(const Grid& fine, const MultigridOptions& opt) {
  return bouss::levels_on_the_ranks(fine, opt);
}

template <class R>
std::pair<double, double> Multigrid<R>::estimate_memory(const Backend& backend, const Grid& fine,
                                                        const MultigridOptions& opt) {
  double on_backend = mean_slots * sizeof(double), on_host = 0;
  if (cheaper_cycles(opt)) {
    add_hierarchy_bytes<float>(backend, fine, opt, true, on_backend, on_host);
  } else {
    add_hierarchy_bytes<R>(backend, fine, opt, false, on_backend, on_host);
    if (opt.fmg) on_backend += 2 * double(fine.layout.size) * sizeof(R);  // defect, correction (at the first FMG)
  }
  return {on_backend, on_host};
}

template <class R>
int Multigrid<R>::levels() const { return direct_ ? direct_->levels() : cheap_->levels(); }
template <class R>
const Grid& Multigrid<R>::level_grid(int l) const { return direct_ ? direct_->level(l).grid : cheap_->level(l).grid; }
template <class R>
bool Multigrid<R>::level_on_host(int l) const {
  return !(direct_ ? direct_->level(l).backend : cheap_->level(l).backend).is_cuda();
}

template <class R>
double Multigrid<R>::bytes_per_cycle() const {
  const double cells = double(grid_.layout.cells());
  if (direct_) return direct_->vcycle_bytes(0) + 2 * cells * sizeof(R);  // + residual norm
  // defect in R stored as float, its norm, the correction added to x
  return cheap_->vcycle_bytes(0) + cells * (2 * sizeof(R) + 4) + cells * 4 + cells * (2 * sizeof(R) + 4);
}

template <class R>
double Multigrid<R>::bytes_fmg() const {
  const double cells = double(grid_.layout.cells());
  if (direct_) return direct_->fmg_bytes() + cells * 3 * sizeof(R) * 2 + 2 * cells * sizeof(R);
  return cheap_->fmg_bytes() - cheap_->vcycle_bytes(0) + bytes_per_cycle();
}

// Moved from the step's traffic model (model/flow_simulation.cpp): an FMG start replaces
// the convergence check before the first cycle.
template <class R>
double Multigrid<R>::bytes_per_solve(const SolveStats& s) const {
  const double means = mean_removal_arrays * double(grid_.layout.cells()) * sizeof(R);
  if (!s.checked) {  // solve_passes: the cycles without their checks, the defect before each (mixed)
    const double cells = double(grid_.layout.cells()), defect = cells * (2 * sizeof(R) + 4);
    if (direct_) return s.cycles * direct_->vcycle_bytes(0) + means;
    return s.cycles * (cheap_->vcycle_bytes(0) + defect + defect) + means;
  }
  const int v_cycles = s.cycles - (s.fmg ? 1 : 0);
  return (s.fmg ? bytes_fmg() : 0) + (v_cycles + (s.fmg ? 0 : 1)) * bytes_per_cycle() +
         mean_removal_arrays * double(grid_.layout.cells()) * sizeof(R);
}

// The residual in R at each cell, its max in double.
template <class R>
double Multigrid<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  const Stencil<R> st = make_stencil<R>(grid_, x.backend());
  const CView<R> xv = x.cview(), bv = b.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  return reduce(x.backend(), grid_.layout.interior(Stagger::centre), 0.0, MaxOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  return double(std::fabs(bv[idx] - laplacian<false>(idx, k, xv, st)));
                }, "multigrid residual norm");
}

template <class R>
SolveStats Multigrid<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const Box interior = grid_.layout.interior(Stagger::centre);
  const bool singular = bc_.singular();
  SolveStats stats;
  const double bnorm = singular ? remove_mean_max_abs(b) : max_abs(b, interior);
  if (bnorm == 0 && singular) {  // the solution is a constant: zero mean
    fill(x, 0);
    return SolveMonitor::constant_solution();
  }
  SolveMonitor monitor(stats, bnorm, tolerance);
  fill_ghosts(x, bc_, grid_);
  if (direct_) {
    monitor.record(residual_norm(x, b));
    if (opt_.fmg && monitor.above_target()) {  // FMG on the defect: x += FMG(lap e = b - lap x)
      if (!defect_.allocated()) {
        defect_ = Field<R>(backend_, grid_.layout, Stagger::centre, "mg defect");
        correction_ = Field<R>(backend_, grid_.layout, Stagger::centre, "mg correction");
        fill(defect_, 0);
        fill(correction_, 0);
      }
      defect_into(grid_, x, b, defect_);
      direct_->attach(correction_, defect_, true);
      direct_->fmg();
      add_field(x, correction_, grid_.layout.interior(Stagger::centre));
      fill_ghosts(x, bc_, grid_);
      stats.fmg = true;
      ++stats.cycles;
      monitor.record(residual_norm(x, b));
    }
    direct_->attach(x, b, false);
    while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
      direct_->vcycle();
      ++stats.cycles;
      if (!monitor.record(residual_norm(x, b))) break;
    }
  } else {  // fp32 cycles on the defect, defect and correction in R
    MultigridHierarchy<float>& H = *cheap_;
    defect_into(grid_, x, b, H.b0());
    monitor.record(max_abs(H.b0(), interior));
    while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
      const bool fmg_start = opt_.fmg && stats.cycles == 0;
      correct_from_defect(x, fmg_start);
      stats.fmg = stats.fmg || fmg_start;
      ++stats.cycles;
      defect_into(grid_, x, b, H.b0());
      if (!monitor.record(max_abs(H.b0(), interior))) break;
    }
  }
  if (singular) {
    remove_mean(x);
    fill_ghosts(x, bc_, grid_);
  }
  monitor.finish();
  return stats;
}

// The checked solve's cycles without their residual norms, and the means taken out on the
// device (grid/field_ops.hpp remove_mean_queued): the same kernels in the same order, so the
// same x as a checked solve that took `passes` cycles.
template <class R>
SolveStats Multigrid<R>::solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) {
  (void)lent;
  const bool singular = bc_.singular();
  if (singular) remove_mean_max_abs_queued(b, means_);
  fill_ghosts(x, bc_, grid_);
  if (direct_) {
    direct_->attach(x, b, false);
    for (int c = 0; c < passes; ++c) direct_->vcycle();
  } else {
    for (int c = 0; c < passes; ++c) {
      defect_into(grid_, x, b, cheap_->b0());
      correct_from_defect(x, false);
    }
  }
  if (singular) {
    remove_mean_queued(x, means_ + 3);
    fill_ghosts(x, bc_, grid_);
  }
  return SolveStats::unchecked(passes);
}

// One fp32 cycle (or the FMG start) on the defect in cheap_'s finest level, added to x.
template <class R>
void Multigrid<R>::correct_from_defect(Field<R>& x, bool fmg_start) {
  MultigridHierarchy<float>& H = *cheap_;
  if (fmg_start) {
    H.fmg();
  } else {
    fill(H.x0(), 0);
    H.vcycle();
  }
  add_field(x, H.x0(), grid_.layout.interior(Stagger::centre));
  fill_ghosts(x, bc_, grid_);
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
  // Under several ranks the means of solve_passes (taken on the device) would be each rank's.
  return backend_.ranks().alone() && fixed_passes_possible(backend_, opt_, plan(backend_, grid_.layout.n, opt_));
}

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
  auto work = [&] { smooth(g, backend, x, b, bc, sweeps, 1.25); };
  return median_ms(backend, repeats, [&] { graph.run(backend, cuda_graph, 1, work); });  // warm-up captures
}

}  // namespace bouss
