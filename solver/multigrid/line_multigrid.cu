// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/multigrid/line_multigrid.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "solver/ghost_self.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/volume_mean.hpp"

namespace bouss {

std::vector<std::array<int, 3>> line_multigrid_levels(const std::array<int, 3>& n) {
  std::vector<std::array<int, 3>> shapes{n};
  for (;;) {
    std::array<int, 3> next = shapes.back();
    for (int a = 0; a < 2; ++a)
      if (next[a] % 2 == 0 && next[a] >= 4) next[a] /= 2;
    if (next == shapes.back()) break;
    shapes.push_back(next);
  }
  return shapes;
}

template <class R>
struct LineMultigrid<R>::Level {
  Grid grid;
  FieldBC bc;  // the problem's on level 0, homogeneous below
  GhostSelf<R> self;
  // A periodic horizontal axis of odd length, or a face cut between ranks: ghosts filled
  // before each colour (sweeps_read_ghosts).
  bool fills = false;
  int halved[2] = {0, 0};  // from the level above
  Field<R> x_own, b_own, c, d;
  Field<R>* x = nullptr;
  Field<R>* b = nullptr;
};

namespace {

// x relaxed towards the line's exact solution v.
template <class R>
BOUSS_HD inline R relaxed(R old, R v, R omega) {
  return omega == R(1) ? v : old + omega * (v - old);
}

#if defined(__CUDACC__)
// One colour of a zebra sweep with each line solved by parallel cyclic reduction (paper 003;
// solver/line/tridiagonal_kernels.hpp): one block per line, one thread per row, the rows and the
// right-hand side those of the Thomas sweep (LineSystem), log2(nz) steps in shared memory.
// For levels with few columns, where one thread per line leaves the GPU idle through a
// chain of nz dependent rows.
template <class R>
__global__ void pcr_zebra_kernel(View<R> x, View<const R> xn, View<const R> b, LineStencil<R> st, GhostSelf<R> self,
                                 int colour, R omega, int per_row) {
  extern __shared__ unsigned char shared[];
  const int nz = st.n[2];
  R* A = reinterpret_cast<R*>(shared);
  R *B = A + nz, *C = B + nz, *D = C + nz, *A2 = D + nz, *B2 = A2 + nz, *C2 = B2 + nz, *D2 = C2 + nz;
  const int j = blockIdx.x / per_row, i = 2 * (blockIdx.x % per_row) + ((j + colour) & 1);
  if (i >= st.n[0]) return;  // the whole block
  const LineSystem<R, View<const R>, View<const R>> sys(xn, b, st, self, i, j);
  const int k = threadIdx.x;
  const std::ptrdiff_t idx = i + j * st.s[1] + k * st.s[2];
  const TriRow<R> row = sys(k);
  A[k] = row.lower;
  B[k] = row.diag;
  C[k] = row.upper;
  D[k] = sys.rhs(idx, k == 0, k == nz - 1);
  __syncthreads();
  for (int s = 1; s < nz; s *= 2) {
    R k1, k2;
    const PcrRow<R> r = pcr_row(nz, k, s, A, B, C, k1, k2);
    const R d = pcr_rhs(nz, k, s, D, k1, k2);
    A2[k] = r.a;
    B2[k] = r.b;
    C2[k] = r.c;
    D2[k] = d;
    __syncthreads();
    pcr_swap(A, A2, B, B2, C, C2, D, D2);
  }
  x[idx] = relaxed(x[idx], D[k] / B[k], omega);
}
#endif

// Whether a zebra colour's lines go to pcr_zebra_kernel: on CUDA, in double, lines of at most
// 1024 rows (a block), fewer than zebra_pcr_line_limit of them. Measured on the H200 (bench
// elliptic, 128 rows): pcr for every colour under 16384 lines (the levels up to 128x128
// columns) took the V-cycle from 5.08 to 3.60 ms at 256x256x128 and from 11.8 to 10.4 at
// 512x512x128 against pcr under 2048 lines; pcr for all levels was slower (3.98 and 14.9:
// with 32768 lines and more, Thomas's one thread a line fills the GPU and moves fewer bytes,
// pcr's one block a line reads its rows uncoalesced). Not in float: the pressure's lines are
// nearly singular (their rows sum to the small horizontal part), and pcr's rounding there
// raised float's floor above 1e-3 of max|b| (32x16x24 stretched), where Thomas reaches it.
constexpr long zebra_pcr_line_limit = 16384;
template <class R>
bool zebra_by_pcr(const Backend& be, const Layout& L) {
  const long lines = (long(L.n[0]) * L.n[1] + 1) / 2;
  return be.is_cuda() && sizeof(R) == sizeof(double) && L.n[2] <= 1024 && lines < zebra_pcr_line_limit;
}

// One colour of a zebra sweep: the lines through the columns with (i + j) % 2 == colour, in
// global indices (a block at an odd offset of a grid cut over ranks flips it).
template <class R>
void relax_lines(const Grid& g, const Backend& be, Field<R>& x, const Field<R>& b, Field<R>& c, Field<R>& d,
                 const GhostSelf<R>& self, int global_colour, R omega, double shift) {
  const int colour = (global_colour + g.offset()[0] + g.offset()[1]) & 1;
  const LineStencil<R> st = make_line_stencil<R>(g, be, shift);
  const View<R> xv = x.view(), cv = c.view(), dv = d.view();
  // The neighbours (the other colour) read through the read-only cache: the compiler may
  // then issue the loads of the next rows before this row's stores.
  const View<const R> bv = b.cview(), xn = x.cview();
  const int nx = st.n[0], nz = st.n[2];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  if (zebra_by_pcr<R>(be, g.layout)) {
#if defined(__CUDACC__)
    const int per_row = (nx + 1) / 2;
    const std::size_t shared = 8 * std::size_t(nz) * sizeof(R);
    if (shared > 48 * 1024 &&
        cudaFuncSetAttribute(pcr_zebra_kernel<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)) != cudaSuccess)
      throw std::runtime_error("line multigrid: cannot raise the shared memory limit for lines of " +
                               std::to_string(nz) + " rows");
    pcr_zebra_kernel<R><<<per_row * st.n[1], nz, shared, static_cast<cudaStream_t>(be.stream())>>>(
        xv, xn, bv, st, self, colour, omega, per_row);
    check_launch("line multigrid zebra sweep (pcr)", be);
    return;
#endif
  }
  for_each(be, Box{{0, 0, 0}, {(nx + 1) / 2, st.n[1], 1}}, [=] BOUSS_HD(int ih, int j, int) {
    const int i = 2 * ih + ((j + colour) & 1);
    if (i >= nx) return;
    using System = LineSystem<R, View<const R>, View<const R>>;
    const System sys(xn, bv, st, self, i, j);
    const std::ptrdiff_t base = i + j * sy;
    const LineRhs<R, System> rhs{&sys, base, base + (nz - 1) * sz};
    thomas_line<R>(nz, sys, rhs, dv, cv, base, sz, [&](std::ptrdiff_t idx, R v) { xv[idx] = relaxed(xv[idx], v, omega); });
  }, "line multigrid zebra sweep");
}

// The residual of the fine level restricted to the coarse level's b, horizontally.
template <class R>
void restrict_line_residual_to(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[2],
                               const Field<R>& x, const Field<R>& b, Field<R>& out, double shift) {
  const LineStencil<R> st = make_line_stencil<R>(fine, be, shift);
  const View<const R> xv = x.cview(), bv = b.cview();
  const View<R> ov = out.view();
  const std::ptrdiff_t sy = coarse.layout.sy, sz = coarse.layout.sz;
  const int c0 = halved[0], c1 = halved[1];
  for_each(be, coarse.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const int c[2] = {c0, c1};
    const std::ptrdiff_t first = (i << c0) + (j << c1) * st.s[1] + k * st.s[2];
    ov[i + j * sy + k * sz] = restrict_line_residual(xv, bv, first, k, st, c);
  }, "line multigrid restrict residual");
}

// x += the coarse correction e, interpolated bilinearly in x and y.
template <class R>
void prolong_lines_add(const Grid& fine, const Grid& coarse, const Backend& be, const int halved[2], const Field<R>& e,
                       Field<R>& x) {
  const View<const R> ev = e.cview();
  const View<R> xv = x.view();
  const std::ptrdiff_t sc1 = coarse.layout.sy, sc2 = coarse.layout.sz;
  const std::ptrdiff_t sy = fine.layout.sy, sz = fine.layout.sz;
  const int c0 = halved[0], c1 = halved[1];
  for_each(be, fine.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const int c[3] = {c0, c1, 0};
    const std::ptrdiff_t sc[3] = {1, sc1, sc2};
    xv[i + j * sy + k * sz] += prolong_trilinear<R>(ev, i, j, k, sc, c);
  }, "line multigrid prolong");
}

}  // namespace

namespace {
// How many line-multigrid levels stay cut over the ranks (every one when the grid is whole).
int line_levels_on_the_ranks(const Grid& fine, int agglomerate_below) {
  const auto shapes = line_multigrid_levels(fine.global_n());
  if (!fine.decomposition || fine.decomposition->ranks() == 1) return int(shapes.size());
  return fine.decomposition->levels_within_ranks(shapes, agglomerate_below, int(shapes.size()));
}
}  // namespace

template <class R>
int LineMultigrid<R>::levels_on_the_ranks(const Grid& fine, const LineMultigridOptions& opt) {
  return line_levels_on_the_ranks(fine, opt.agglomerate_below);
}

template <class R>
LineMultigrid<R>::LineMultigrid(const Backend& backend, const Grid& fine, const FieldBC& bc, LineMultigridOptions opt)
    : backend_(backend), grid_(fine), bc_(bc), opt_(opt) {
  if (bc.periodic(2) && fine.layout.n[2] > 1)
    throw std::invalid_argument("line multigrid: the vertical lines need walls at z_lo and z_hi, not a periodic z");
  const auto shapes = line_multigrid_levels(fine.global_n());
  const int kept = line_levels_on_the_ranks(fine, opt.agglomerate_below);
  gathers_ = kept < int(shapes.size());
  for (int l = 0; l < kept; ++l) {
    auto L = std::make_unique<Level>();
    if (l == 0) {
      L->grid = fine;
    } else {
      std::array<int, 3> halved{};
      for (int a = 0; a < 2; ++a) halved[a] = shapes[l][a] != shapes[l - 1][a];
      const Grid& above = levels_.back()->grid;
      std::unique_ptr<Decomposition> block;
      if (above.decomposition) block = std::make_unique<Decomposition>(above.decomposition->coarsened(halved));
      L->grid = fine.level(shapes[l], sizeof(R), block.get());
    }
    L->grid.template z_view<R>(backend);  // the tables before any launch (or capture) needs them
    L->grid.template z_view<double>(backend);
    L->bc = l == 0 ? bc : bc.homogeneous();
    L->self = ghost_self<R>(L->bc, L->grid);
    L->fills = sweeps_read_ghosts(L->self);
    if (l > 0) {
      for (int a = 0; a < 2; ++a) L->halved[a] = shapes[l][a] != shapes[l - 1][a];
      L->x_own = Field<R>(backend, L->grid.layout, Stagger::centre, "line mg x");
      L->b_own = Field<R>(backend, L->grid.layout, Stagger::centre, "line mg b");
      fill(L->x_own, 0);
      fill(L->b_own, 0);
      L->x = &L->x_own;
      L->b = &L->b_own;
    }
    L->c = Field<R>(backend, L->grid.layout, Stagger::centre, "line mg c'");
    L->d = Field<R>(backend, L->grid.layout, Stagger::centre, "line mg d'");
    fill(L->c, 0);
    fill(L->d, 0);
    levels_.push_back(std::move(L));
  }
  if (gathers_) {
    gathered_ = GatheredLevel<R>(backend, levels_.back()->grid, "line mg");
    for (int a = 0; a < 2; ++a) tail_halved_[a] = shapes[kept][a] != shapes[kept - 1][a];
    if (gathered_.on_root()) {
      const Backend alone = backend.with_ranks(Communicator::self());
      const Grid& whole_grid = gathered_.whole_grid();
      whole_grid.template z_view<R>(alone);  // the restriction reads the whole level's z tables
      whole_zero_ = Field<R>(alone, whole_grid.layout, Stagger::centre, "line mg zero");
      fill(whole_zero_, 0);
      const Grid tail = fine.level(shapes[kept], sizeof(R));
      tail_ = std::make_unique<LineMultigrid<R>>(alone, tail, bc.homogeneous().whole(), opt);
      tail_x_ = Field<R>(alone, tail.layout, Stagger::centre, "line mg gathered x");
      tail_b_ = Field<R>(alone, tail.layout, Stagger::centre, "line mg gathered b");
      fill(tail_x_, 0);
      fill(tail_b_, 0);
    }
  }
}

template <class R>
LineMultigrid<R>::~LineMultigrid() = default;

template <class R>
double LineMultigrid<R>::estimate_memory(const Grid& fine, std::size_t value_bytes, const LineMultigridOptions& opt) {
  double bytes = 0;
  const auto shapes = line_multigrid_levels(fine.global_n());
  const int kept = line_levels_on_the_ranks(fine, opt.agglomerate_below);
  std::unique_ptr<Decomposition> block = fine.decomposition ? std::make_unique<Decomposition>(*fine.decomposition) : nullptr;
  for (int l = 0; l < kept; ++l) {
    if (l > 0 && block) {
      std::array<int, 3> halved{};
      for (int a = 0; a < 2; ++a) halved[a] = shapes[l][a] != shapes[l - 1][a];
      *block = block->coarsened(halved);
    }
    const Layout L = Layout::make(block ? block->n : shapes[l], fine.layout.ghost, value_bytes);
    bytes += (l == 0 ? 2 : 4) * double(L.size) * value_bytes;  // c', d' (and x, b below the finest)
    if (l > 0) bytes += z_table_bytes(L);                    // level 0 shares the fine grid's tables
    if (l + 1 == kept && kept < int(shapes.size())) {
      bytes += double(L.size) * value_bytes;  // the residual and correction gathered
      if (!fine.decomposition || fine.decomposition->rank == 0) {  // rank 0: the whole level, the gathered levels
        bytes += 2 * double(Layout::make(shapes[l], fine.layout.ghost, value_bytes).size) * value_bytes;
        const Grid tail = fine.level(shapes[l + 1], value_bytes);
        bytes += estimate_memory(tail, value_bytes, opt) + 2 * double(tail.layout.size) * value_bytes;
        // The z tables of the whole level and of the tail's first level: grids of their own.
        bytes += z_table_bytes(Layout::make(shapes[l], fine.layout.ghost, value_bytes)) + z_table_bytes(tail.layout);
      }
    }
  }
  return bytes;
}

template <class R>
void LineMultigrid<R>::attach(Field<R>& x, Field<R>& b) {
  levels_[0]->x = &x;
  levels_[0]->b = &b;
}

template <class R>
void LineMultigrid<R>::smooth(int l, int sweeps, bool x_zero) {
  Level& L = *levels_[std::size_t(l)];
  for (int s = 0; s < sweeps; ++s)
    for (int colour = 0; colour < 2; ++colour) {
      if (L.fills && !(x_zero && s == 0 && colour == 0)) fill_ghosts(*L.x, L.bc, L.grid);
      relax_lines(L.grid, backend_, *L.x, *L.b, L.c, L.d, L.self, colour, R(opt_.omega), opt_.shift);
    }
  fill_ghosts(*L.x, L.bc, L.grid);
}

template <class R>
void LineMultigrid<R>::vcycle_on(Field<R>& x, Field<R>& b) {
  attach(x, b);
  vcycle();
}

template <class R>
std::uintptr_t LineMultigrid<R>::key(int segment) const {
  const auto x = reinterpret_cast<std::uintptr_t>(levels_[0]->x->data());
  const auto b = reinterpret_cast<std::uintptr_t>(levels_[0]->b->data());
  return (x * 1000003u) ^ (b * 7919u) ^ (std::uintptr_t(segment) << 60);
}

// Below the finest, a level's x arrives cleared (down() fills it with 0).
template <class R>
void LineMultigrid<R>::down(int to) {
  for (int l = 0; l < to; ++l) {
    Level &F = *levels_[std::size_t(l)], &C = *levels_[std::size_t(l) + 1];
    smooth(l, opt_.pre_sweeps, l > 0);
    restrict_line_residual_to(F.grid, C.grid, backend_, C.halved, *F.x, *F.b, *C.b, opt_.shift);
    fill(*C.x, 0);
  }
}

template <class R>
void LineMultigrid<R>::up(int from) {
  for (int l = from - 1; l >= 0; --l) {
    Level &F = *levels_[std::size_t(l)], &C = *levels_[std::size_t(l) + 1];
    prolong_lines_add(F.grid, C.grid, backend_, C.halved, *C.x, *F.x);
    fill_ghosts(*F.x, F.bc, F.grid);
    smooth(l, opt_.post_sweeps);
  }
}

template <class R>
void LineMultigrid<R>::vcycle() {
  const int L = levels() - 1;
  const bool graphs = opt_.cuda_graphs && backend_.is_cuda();
  if (!gathers_) {  // one graph
    graphs_.run(backend_, graphs, key(0), [&] {
      down(L);
      smooth(L, opt_.coarsest_sweeps, L > 0);
      up(L);
    });
    return;
  }
  // The levels below gathered onto rank 0 (collective).
  Level& F = *levels_[std::size_t(L)];
  graphs_.run(backend_, graphs, key(1), [&] {
    down(L);
    smooth(L, opt_.pre_sweeps, L > 0);
    line_residual_into(F.grid, backend_, opt_.shift, *F.x, *F.b, nullptr, gathered_.boundary());
  });
  gathered_.gather(gathered_.boundary());
  if (tail_) {  // restricted as the fused kernel restricts b - L x: here b = r, x = 0
    Field<R>& whole = gathered_.whole();
    restrict_line_residual_to(gathered_.whole_grid(), tail_->grid_, whole.backend(), tail_halved_, whole_zero_, whole,
                              tail_b_, opt_.shift);
    fill(tail_x_, 0);
    tail_->vcycle_on(tail_x_, tail_b_);
    fill(whole, 0);
    prolong_lines_add(gathered_.whole_grid(), tail_->grid_, whole.backend(), tail_halved_, tail_x_, whole);
  }
  gathered_.scatter_add(*F.x);
  graphs_.run(backend_, graphs, key(2), [&] {
    fill_ghosts(*F.x, F.bc, F.grid);
    smooth(L, opt_.post_sweeps);
    up(L);
  });
}

namespace {
// Both maxima at once, NaN propagating as MaxOp's.
struct ResidualNormsOp {
  BOUSS_HD ResidualNorms operator()(const ResidualNorms& a, const ResidualNorms& b) const {
    return {MaxOp{}(a.residual, b.residual), MaxOp{}(a.rhs, b.rhs)};
  }
};
}  // namespace

template <class R>
ResidualNorms line_residual_norms(const Grid& g, const Backend& backend, double shift, const Field<R>& x,
                                  const Field<R>& b, const double* b_offset) {
  const LineStencil<R> st = make_line_stencil<R>(g, backend, shift);
  const View<const R> xv = x.cview(), bv = b.cview();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  return reduce(backend, g.layout.interior(Stagger::centre), ResidualNorms{}, ResidualNormsOp{},
                [=] BOUSS_HD(int i, int j, int k) {
                  const std::ptrdiff_t idx = i + j * sy + k * sz;
                  const R rhs = bv[idx] - (b_offset ? R(*b_offset) : R(0));
                  return ResidualNorms{double(std::fabs(rhs - line_laplacian(idx, k, xv, st))), double(std::fabs(rhs))};
                }, "line residual norm");
}
template ResidualNorms line_residual_norms<double>(const Grid&, const Backend&, double, const Field<double>&,
                                                   const Field<double>&, const double*);
template ResidualNorms line_residual_norms<float>(const Grid&, const Backend&, double, const Field<float>&,
                                                  const Field<float>&, const double*);

template <class R>
double line_residual_norm(const Grid& g, const Backend& backend, double shift, const Field<R>& x, const Field<R>& b,
                          const double* b_offset) {
  return line_residual_norms(g, backend, shift, x, b, b_offset).residual;
}
template double line_residual_norm<double>(const Grid&, const Backend&, double, const Field<double>&,
                                           const Field<double>&, const double*);
template double line_residual_norm<float>(const Grid&, const Backend&, double, const Field<float>&,
                                          const Field<float>&, const double*);

template <class R>
void line_residual_into(const Grid& g, const Backend& backend, double shift, const Field<R>& x, const Field<R>& b,
                        const double* b_offset, Field<R>& r) {
  const LineStencil<R> st = make_line_stencil<R>(g, backend, shift);
  const View<const R> xv = x.cview(), bv = b.cview();
  const View<R> rv = r.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(backend, g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    rv[idx] = bv[idx] - (b_offset ? R(*b_offset) : R(0)) - line_laplacian(idx, k, xv, st);
  }, "line residual");
}
template void line_residual_into<double>(const Grid&, const Backend&, double, const Field<double>&,
                                         const Field<double>&, const double*, Field<double>&);
template void line_residual_into<float>(const Grid&, const Backend&, double, const Field<float>&, const Field<float>&,
                                        const double*, Field<float>&);

template <class R>
LineSolveStart start_line_solve(const Grid& g, const FieldBC& bc, double shift, Field<R>& x, Field<R>& b) {
  LineSolveStart s;
  s.singular = bc.singular() && shift == 0;
  if (s.singular) remove_volume_mean(g, b);
  s.bnorm = max_abs(b, g.layout.interior(Stagger::centre));
  s.constant = s.bnorm == 0 && s.singular;
  if (s.constant) fill(x, 0);
  return s;
}
template LineSolveStart start_line_solve<double>(const Grid&, const FieldBC&, double, Field<double>&, Field<double>&);
template LineSolveStart start_line_solve<float>(const Grid&, const FieldBC&, double, Field<float>&, Field<float>&);

template <class R>
double LineMultigrid<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return line_residual_norm(grid_, backend_, opt_.shift, x, b);
}

template <class R>
SolveStats LineMultigrid<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const LineSolveStart start = start_line_solve(grid_, bc_, opt_.shift, x, b);
  if (start.constant) return SolveMonitor::constant_solution();
  const bool singular = start.singular;
  SolveStats stats;
  SolveMonitor monitor(stats, start.bnorm, tolerance);
  fill_ghosts(x, bc_, grid_);
  attach(x, b);
  monitor.record(residual_norm(x, b));
  while (monitor.above_target() && stats.cycles < opt_.max_cycles) {
    vcycle();
    ++stats.cycles;
    if (!monitor.record(residual_norm(x, b))) break;
  }
  if (singular) {
    remove_volume_mean(grid_, x);
    fill_ghosts(x, bc_, grid_);
  }
  monitor.finish();
  return stats;
}

template <class R>
double LineMultigrid<R>::bytes_per_cycle() const {
  // Per level of N cells (values of sizeof(R)): a zebra sweep reads x and b and writes and
  // reads back c' and d' and writes x (7 N); the restriction reads x and b and writes N/4 (or
  // N/2); the prolongation reads the coarse x and updates x (2 N and the coarse); the coarse
  // x is zeroed. The finest's residual check reads x and b.
  double values = 0;
  for (int l = 0; l < levels(); ++l) {
    const double N = double(levels_[std::size_t(l)]->grid.layout.cells());
    const bool coarsest = l + 1 == levels();
    const int sweeps = coarsest ? opt_.coarsest_sweeps : opt_.pre_sweeps + opt_.post_sweeps;
    values += 7 * N * sweeps;
    if (!coarsest) {
      const double Nc = double(levels_[std::size_t(l) + 1]->grid.layout.cells());
      values += 2 * N + Nc;      // restriction
      values += 2 * N + 2 * Nc;  // zeroing and reading the coarse x, updating x
    }
  }
  values += 2 * double(grid_.layout.cells());
  return values * sizeof(R);
}

template <class R>
double LineMultigrid<R>::bytes_per_solve(const SolveStats& s) const {
  // + the first check and the means
  return s.cycles * bytes_per_cycle() + (2 + mean_removal_arrays) * double(grid_.layout.cells()) * sizeof(R);
}

template class LineMultigrid<double>;
template class LineMultigrid<float>;

}  // namespace bouss
