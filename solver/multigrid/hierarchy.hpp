// The levels of the one multigrid driver (solver/multigrid/driver.hpp) and the cycles over
// them, for a level operator Op of precision Op::value_type: the V-cycle and the FMG start,
// the coarse levels gathered onto rank 0 below the ranks' blocks, levels on the host below
// device levels, the device part of each cycle replayed as CUDA graphs. The operators:
// PointRelaxation (solver/multigrid/multigrid.cu: red-black cells, every even axis halved, the coarsest
// level solved by its dense inverse) and LineRelaxation (solver/multigrid/line_multigrid.cu: zebra
// vertical lines, x and y halved, the coarsest level smoothed). An operator supplies:
//   shapes(n), coarsest_on_the_ranks, on_host(...): how it coarsens, where levels run;
//   add_level(L, coarsest), add_gathered(whole, alone): its arrays (Work), at construction;
//   relax(L, self, colour, first_layer): one colour of its smoother (first_layer: on the first
//     ghost layer across the cuts too, where relaxes_first_ghost_layer: smooth's two layers);
//     restrict_residual(F, C, out),
//     restrict_rhs(...), prolong(...), residual(F, r), solve_coarsest(C, x_zero);
//   fills_after_correction: x's ghosts filled after a V-cycle's coarse correction;
//   level_bytes, gathered_bytes: its arrays' bytes (add_hierarchy_bytes below); sweep_arrays,
//     coarsest_bytes, counts_gathered_levels: its traffic (vcycle_bytes);
//   singular, rhs_norm, residual_norm, defect_into, remove_mean: the fine level in the
//     fields' precision (solver/multigrid/driver_impl.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid/boundary.hpp"
#include "grid/captured_work.hpp"
#include "grid/coarsening.hpp"
#include "grid/field.hpp"
#include "grid/halo.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "grid/z_tables.hpp"
#include "solver/multigrid/gathered_level.hpp"
#include "solver/ghost_self.hpp"

namespace bouss {

// One level: its grid (this rank's block under several ranks), where it runs, its x and b.
template <class S, class Work>
struct MultigridLevel {
  Grid grid;
  Backend backend;
  FieldBC bc;  // the problem's on level 0, homogeneous below
  Field<S> x_own, b_own;
  Field<S>* x = nullptr;
  Field<S>* b = nullptr;
  std::array<int, 3> halved{};  // axes halved from the finer level to this one
  // When this level lives on the host below a device level: mirrors of x and b on the
  // device, so that restriction and prolongation run where the fine data is.
  Field<S> x_mirror, b_mirror;
  bool mirrored = false;
  // Two ghost layers across the cuts between ranks, exchanged once a sweep rather than once a
  // colour (level_ghost, smooth): its b's first layer is exchanged when b is written.
  bool two_layers = false;
  Work work;  // the operator's arrays on this level
};

// A field on `g` zeroed, ghosts included.
template <class S>
Field<S> zeroed(const Backend& backend, const Grid& g, const std::string& name) {
  Field<S> f(backend, g.layout, Stagger::centre, name);
  fill(f, 0);
  return f;
}

// The axes halved from level l - 1 to level l of these shapes.
inline std::array<int, 3> halved_axes(const std::vector<std::array<int, 3>>& shapes, int l) {
  std::array<int, 3> h{};
  for (int a = 0; a < 3; ++a) h[a] = shapes[l][a] != shapes[l - 1][a];
  return h;
}

// `sweeps` sweeps of both colours of a smoother, relax(self, colour, first_layer) relaxing one
// (red-black cells, zebra lines); returns with x's ghosts filled. The sweeps read no ghosts
// (walls folded in, even periodic axes wrapped: solver/ghost_self.hpp) except along a periodic
// axis of odd length and across the cuts between ranks, filled before each colour (the cut
// faces alone where only they are read: no corners, no walls). `x_zero`: x is zero, ghosts
// included, under homogeneous conditions (a coarse level's correction just cleared), so its
// ghosts need no first fill (under ranks, one exchange fewer).
// `two_layers` (x has two ghost layers, b's first is filled, only cut faces are read): one
// exchange a sweep, of both layers and the first layer's edge cells; the first colour is
// relaxed on the first ghost layer across the cuts too (first_layer: the same update the
// neighbour makes of those cells, from the same values), so the second colour finds the
// ghosts it reads already relaxed.
template <class S, class Relax>
void smooth(const Grid& g, Field<S>& x, const FieldBC& bc, int sweeps, bool x_zero, const Relax& relax,
            bool two_layers = false) {
  const GhostSelf<S> self = ghost_self<S>(bc, g);
  const bool fills = sweeps_read_ghosts(self);
  // Where the sweeps read only ghosts across cuts, the cut faces alone, both cut axes in one
  // group of messages (half the groups of a 2x2 process grid's fills).
  const bool cuts_alone = sweeps_read_only_cut_ghosts(self, bc);
  if (two_layers && (!fills || !cuts_alone || x.layout().ghost < 2))
    throw std::logic_error("multigrid: two-layer sweeps where the sweeps read more than the cut faces");
  for (int s = 0; s < sweeps; ++s)
    for (int colour = 0; colour < 2; ++colour) {
      const bool first = x_zero && s == 0 && colour == 0;
      if (!fills || first || (two_layers && colour == 1)) {
      } else if (two_layers) {
        exchange_cut_faces(x, bc, true);
      } else if (cuts_alone) {
        exchange_cut_faces(x, bc);
      } else {
        fill_ghosts(x, bc, g);
      }
      relax(self, colour, two_layers && colour == 0);
    }
  fill_ghosts(x, bc, g);
}

// The ghost layers of level l of a hierarchy over `fine`, `block` its decomposition where cut:
// two where the level (l > 0: not the caller's fields) is cut over ranks into blocks of at
// least two cells along each cut axis (a second layer from the neighbour's own cells) and the
// operator can relax a ghost layer (smooth's two_layers), on a grid without stretched axes
// (whose ghost fill is exact in one layer); else the fine grid's. The same on every rank.
template <class Op>
int level_ghost(const Grid& fine, int l, const Decomposition* block) {
  if (l == 0 || !block || block->ranks() == 1 || !Op::relaxes_first_ghost_layer || fine.stretched() ||
      fine.stretched_horizontally())
    return fine.layout.ghost;
  for (int a = 0; a < 2; ++a)
    if (block->smallest_block(a) < 2) return fine.layout.ghost;
  return 2;
}

// How many levels, finest first, stay cut over the ranks of a grid cut over several: the
// finest, then each coarser one whose blocks halve within their rank into blocks of at least
// agglomerate_below cells along each cut axis; the coarsest only where the operator solves
// it on the ranks. The levels below are gathered onto rank 0 (agglomeration). Every level
// on one rank.
template <class Op>
int levels_on_the_ranks(const Grid& fine, const typename Op::Options& opt) {
  const auto shapes = Op::shapes(fine.global_n());
  if (!fine.decomposition || fine.decomposition->ranks() == 1) return int(shapes.size());
  if (shapes.size() < 2 && !Op::coarsest_on_the_ranks)
    throw std::logic_error("multigrid: a grid cut over ranks that does not coarsen");
  const int most = int(shapes.size()) - (Op::coarsest_on_the_ranks ? 0 : 1);
  return fine.decomposition->levels_within_ranks(shapes, opt.agglomerate_below, most);
}

// The levels of one precision and the cycles over them. On a grid cut over ranks the first
// levels (levels_on_the_ranks) are the ranks' blocks, with the pressure's conditions
// exchanging halos across the cuts; the residual of the last of them is gathered onto rank 0,
// which cycles the coarser levels as a hierarchy of the whole grid (tail_: its own host
// levels and graphs) and scatters the correction back.
template <class Op>
class Hierarchy {
 public:
  using S = typename Op::value_type;
  using Options = typename Op::Options;
  using Level = MultigridLevel<S, typename Op::Work>;

  // `own_level0`: level 0 has x and b of its own (else the caller's, attach()).
  Hierarchy(const Backend& backend, const Grid& fine, const FieldBC& bc, const Options& opt, bool own_level0)
      : backend_(backend), bc_(bc), hom_(bc.homogeneous()), opt_(opt), op_(opt) {
    const auto shapes = Op::shapes(fine.global_n());
    const int kept = levels_on_the_ranks<Op>(fine, opt);
    const std::string name = Op::name;
    gathers_ = kept < int(shapes.size());
    first_host_ = kept;
    for (int l = 0; l < kept; ++l) {
      auto L = std::make_unique<Level>();
      if (l == 0) {
        L->grid = fine;
      } else {
        const Grid& above = levels_.back()->grid;
        L->halved = halved_axes(shapes, l);
        std::unique_ptr<Decomposition> block;
        if (above.decomposition) block = std::make_unique<Decomposition>(above.decomposition->coarsened(L->halved));
        L->grid = fine.level(shapes[l], sizeof(S), block.get(), level_ghost<Op>(fine, l, block.get()));
      }
      // Levels cut over ranks stay on the ranks' backend (their halos are exchanged there).
      const bool host = !gathers_ && Op::on_host(backend, shapes[l], l, opt);
      if (host && l < first_host_) first_host_ = l;
      L->backend = host ? Backend::cpu_pinned() : backend;
      L->bc = l == 0 ? bc : hom_;
      if (L->grid.layout.ghost >= 2 && !host) {
        const GhostSelf<S> self = ghost_self<S>(L->bc, L->grid);
        L->two_layers = sweeps_read_ghosts(self) && sweeps_read_only_cut_ghosts(self, L->bc);
      }
      // The level's z tables on both backends now: a ghost fill inside a captured graph
      // must not allocate.
      L->grid.template z_view<S>(L->backend);
      L->grid.template z_view<S>(backend);
      if (l > 0 || own_level0) {
        L->x_own = zeroed<S>(L->backend, L->grid, name + " x");
        L->b_own = zeroed<S>(L->backend, L->grid, name + " b");
        L->x = &L->x_own;
        L->b = &L->b_own;
      }
      L->mirrored = l > 0 && L->backend != levels_.back()->backend;
      if (L->mirrored) {
        L->x_mirror = zeroed<S>(levels_.back()->backend, L->grid, name + " x mirror");
        L->b_mirror = zeroed<S>(levels_.back()->backend, L->grid, name + " b mirror");
      }
      op_.add_level(*L, l + 1 == int(shapes.size()));
      levels_.push_back(std::move(L));
    }
    if (!gathers_) return;
    gathered_ = GatheredLevel<S>(backend_, levels_.back()->grid, name);
    tail_halved_ = halved_axes(shapes, kept);
    if (!gathered_.on_root()) return;
    const Backend alone = backend_.with_ranks(Communicator::self());
    op_.add_gathered(gathered_.whole_grid(), alone);
    tail_ = std::make_unique<Hierarchy>(alone, fine.level(shapes[kept], sizeof(S)), hom_.whole(), opt, true);
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

  // Traffic model, in bytes, each array of a level counted once per pass that reads or writes
  // it: a V-cycle from level l0, and an FMG start.
  double vcycle_bytes(int l0) const {
    const int sweeps = opt_.pre_sweeps + opt_.post_sweeps;
    double bytes = 0;
    for (int l = l0; l + 1 < levels(); ++l)  // sweeps, residual-restriction (x, b; the coarse b),
      // zeroing the coarse x, prolongation (the coarse x; x read and written)
      bytes += sweeps * Op::sweep_arrays * array_bytes(l) + 4 * array_bytes(l) + 3 * array_bytes(l + 1);
    const double F = array_bytes(levels() - 1);
    if (!gathers_ || !Op::counts_gathered_levels) return bytes + op_.coarsest_bytes(F, levels_.back()->grid);
    // The last level here: its sweeps, residual, gather and correction added; rank 0's whole
    // level and the levels gathered.
    const double whole = double(gathered_.whole_grid().layout.cells()) * sizeof(S);
    return bytes + sweeps * Op::sweep_arrays * F + 3 * F + F + 3 * F + (tail_ ? 2 * whole + tail_->vcycle_bytes(0) : 0);
  }
  double fmg_bytes() const {
    double bytes = 0;
    for (int l = 0; l + 1 < levels(); ++l) bytes += array_bytes(l) + array_bytes(l + 1);  // restrict b
    for (int l = levels() - 2; l >= 0; --l)
      bytes += array_bytes(l) + array_bytes(l + 1) + 2 * array_bytes(l) + vcycle_bytes(l);
    return bytes;
  }

  void vcycle() { vcycle_from(0); }

  // Full multigrid: x0 <- an approximation of A x0 = b0 to discretization accuracy,
  // from b0 alone (x0's content is discarded).
  void fmg() {
    const int L = levels() - 1;  // the coarsest level here (on the ranks, when they gather)
    for (int l = 0; l < L; ++l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      op_.restrict_rhs(F.grid, C.grid, F.backend, C.halved, *F.b, C.mirrored ? C.b_mirror : *C.b);
      if (C.mirrored) C.b->copy_from(C.b_mirror);
      written_b(C);
    }
    if (gathers_) {  // the levels below, gathered: their FMG, then a V-cycle here
      gather_to_tail(*levels_[L]->b, false);
      if (tail_) tail_->fmg();
      fill(*levels_[L]->x, 0);
      correct_from_tail();
      vcycle_from(L);
    } else {
      fill(*levels_[L]->x, 0);
      op_.solve_coarsest(*levels_[L], true);
    }
    for (int l = L - 1; l >= 0; --l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      fill(*F.x, 0);
      if (C.mirrored) C.x_mirror.copy_from(*C.x);
      op_.prolong(F.grid, C.grid, F.backend, C.halved, C.mirrored ? C.x_mirror : *C.x, *F.x);
      vcycle_from(l);
    }
  }

 private:
  double array_bytes(int l) const { return double(levels_[l]->grid.layout.cells()) * sizeof(S); }

  std::uintptr_t key(int segment, int l0) const {
    const auto x = reinterpret_cast<std::uintptr_t>(levels_[0]->x->data());
    const auto b = reinterpret_cast<std::uintptr_t>(levels_[0]->b->data());
    return (x * 1000003u) ^ (b * 7919u) ^ (std::uintptr_t(segment) << 60) ^ (std::uintptr_t(l0) << 52);
  }

  void smooth_level(Level& L, int sweeps, bool x_zero) {
    smooth(L.grid, *L.x, L.bc, sweeps, x_zero,
           [&](const GhostSelf<S>& self, int colour, bool first_layer) { op_.relax(L, self, colour, first_layer); },
           L.two_layers);
  }
  // Level C's b has just been written (restricted): where its sweeps relax the first ghost
  // layer, that layer's b comes from the neighbours.
  void written_b(Level& C) {
    if (C.two_layers) exchange_cut_faces(*C.b, C.bc);
  }

  void vcycle_from(int l0) {
    const int L = levels() - 1;
    const bool graphs = opt_.cuda_graphs && backend_.is_cuda();
    if (gathers_) {  // graphs where the messages go by NCCL (grid/captured_work.hpp)
      Level& F = *levels_[L];
      graphs_.run(backend_, graphs, key(3, l0), [&] {
        down(l0, L);
        smooth_level(F, opt_.pre_sweeps, cleared(L, l0));
        op_.residual(F, gathered_.boundary());
      });
      gather_to_tail(gathered_.boundary(), true);
      if (tail_) tail_->vcycle();
      correct_from_tail();
      graphs_.run(backend_, graphs, key(4, l0), [&] {
        if (Op::fills_after_correction) fill_ghosts(*F.x, F.bc, F.grid);
        smooth_level(F, opt_.post_sweeps, false);
        up(L, l0);
      });
      return;
    }
    // One graph where every level is on the device; the levels plainly on the CPU or below a host level.
    if (!backend_.is_cuda() || l0 >= first_host_ || first_host_ > L) {
      graphs_.run(backend_, graphs && l0 < first_host_, key(0, l0), [&] {
        down(l0, L);
        op_.solve_coarsest(*levels_[L], cleared(L, l0));
        up(L, l0);
      });
    } else {  // device levels down to m - 1, then the host levels, then back up
      const int m = first_host_;
      graphs_.run(backend_, graphs, key(1, l0), [&] { down(l0, m); });
      backend_.synchronize();  // the restricted residual has arrived on the host
      fill(*levels_[m]->x, 0);
      down(m, L);
      op_.solve_coarsest(*levels_[L], cleared(L, m));
      up(L, m);
      graphs_.run(backend_, graphs, key(2, l0), [&] { up(m, l0); });
    }
  }

  // Pre-smoothing and restriction from level `from` down to level `to`. Stream-ordered
  // device work only, where `from` is on the device (it may be graph-captured).
  void down(int from, int to) {
    for (int l = from; l < to; ++l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      smooth_level(F, opt_.pre_sweeps, cleared(l, from));
      op_.restrict_residual(F, C, C.mirrored ? C.b_mirror : *C.b);
      if (C.mirrored)
        copy_bytes_async(C.b->data(), C.backend, C.b_mirror.data(), F.backend, C.b->bytes());
      else
        fill(*C.x, 0);
      written_b(C);
    }
  }

  // Whether down(from, ...) found level l's x cleared (zero, ghosts included): a level below
  // `from` that is not a host mirror (those are cleared by their caller, not here).
  bool cleared(int l, int from) const { return l > from && !levels_[l]->mirrored; }

  // Prolongation and post-smoothing from level `from` up to level `to`.
  void up(int from, int to) {
    for (int l = from - 1; l >= to; --l) {
      Level &F = *levels_[l], &C = *levels_[l + 1];
      if (C.mirrored) copy_bytes_async(C.x_mirror.data(), F.backend, C.x->data(), C.backend, C.x->bytes());
      op_.prolong(F.grid, C.grid, F.backend, C.halved, C.mirrored ? C.x_mirror : *C.x, *F.x);
      if (Op::fills_after_correction) fill_ghosts(*F.x, F.bc, F.grid);
      smooth_level(F, opt_.post_sweeps, false);
    }
  }

  // The values v of the last level on the ranks (its residual, or its right-hand side in
  // FMG), restricted whole onto rank 0 as the first gathered level's b, whose x starts at 0
  // (as a single rank's V-cycle restricts them). Collective.
  void gather_to_tail(const Field<S>& v, bool zero_x) {
    gathered_.gather(v);
    if (!tail_) return;
    Field<S>& whole = gathered_.whole();
    op_.restrict_rhs(gathered_.whole_grid(), tail_->level(0).grid, whole.backend(), tail_halved_, whole, tail_->b0());
    if (zero_x) fill(tail_->x0(), 0);
  }
  // x of the last level on the ranks += the gathered levels' correction, prolonged on rank 0
  // and scattered (x + (0 + P e): the bits of a single rank's x + P e). Collective.
  void correct_from_tail() {
    if (tail_) {
      Field<S>& whole = gathered_.whole();
      fill(whole, 0);
      op_.prolong(gathered_.whole_grid(), tail_->level(0).grid, whole.backend(), tail_halved_, tail_->x0(), whole);
    }
    gathered_.scatter_add(*levels_.back()->x);
  }

  Backend backend_;
  FieldBC bc_, hom_;
  Options opt_;
  Op op_;
  std::vector<std::unique_ptr<Level>> levels_;
  bool gathers_ = false;
  GatheredLevel<S> gathered_;
  std::array<int, 3> tail_halved_{};
  std::unique_ptr<Hierarchy> tail_;
  int first_host_ = 0;
  CapturedWork graphs_{true};  // halo exchanges, no reductions: captured under ranks too (NCCL)
};

// Bytes a hierarchy of operator Op allocates, on the fine grid's backend and on the host;
// follows the constructor above allocation by allocation (the unit test
// Multigrid.MemoryEstimateIsWhatItAllocates holds them together). `elem0`: the element size
// level 0 is laid out for (the coarser levels are laid out for S).
template <class Op>
void add_hierarchy_bytes(const Backend& backend, const Grid& fine, const typename Op::Options& opt, std::size_t elem0,
                         bool own_level0, double& on_backend, double& on_host) {
  using S = typename Op::value_type;
  const auto shapes = Op::shapes(fine.global_n());
  const int kept = levels_on_the_ranks<Op>(fine, opt);
  const bool gathers = kept < int(shapes.size());
  auto block = fine.decomposition ? std::make_unique<Decomposition>(*fine.decomposition) : nullptr;
  bool previous_on_host = false;
  for (int l = 0; l < kept; ++l) {
    if (l > 0 && block) *block = block->coarsened(halved_axes(shapes, l));
    const bool host = !gathers && Op::on_host(backend, shapes[l], l, opt);
    const std::size_t elem = l == 0 ? elem0 : sizeof(S);
    const Layout layout = Layout::make(block ? block->n : shapes[l], level_ghost<Op>(fine, l, block.get()), elem);
    const double array = double(layout.size) * sizeof(S);
    double& here = host ? on_host : on_backend;
    if (l > 0 || own_level0) here += 2 * array;                        // x, b
    if (l > 0 && host && !previous_on_host) on_backend += 2 * array;  // the device mirrors of x, b
    // The level's z tables where it runs and on the backend (level 0 shares the fine grid's
    // on the backend).
    const double tables = z_table_bytes(layout);
    if (l > 0 || host) here += tables;
    if (l > 0 && host && backend.is_cuda()) on_backend += tables;
    here += Op::level_bytes(array, double(cell_count(shapes[l])), l + 1 == int(shapes.size()));
    if (l + 1 == kept && gathers) {
      on_backend += array;  // the residual and correction of the last level on the ranks
      if (fine.decomposition->rank == GatheredLevel<S>::root) {  // the whole of that level, the levels gathered below
        const Layout whole = Layout::make(shapes[l], level_ghost<Op>(fine, l, block.get()), elem);
        on_backend += double(whole.size) * sizeof(S) + Op::gathered_bytes(whole);
        const Grid tail = fine.level(shapes[l + 1], sizeof(S));
        on_backend += z_table_bytes(tail.layout);  // its first level is a grid of its own, with its z tables
        add_hierarchy_bytes<Op>(backend.with_ranks(Communicator::self()), tail, opt, sizeof(S), true, on_backend,
                                on_host);
      }
    }
    previous_on_host = host;
  }
}

}  // namespace bouss
