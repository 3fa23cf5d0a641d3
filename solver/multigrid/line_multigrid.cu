// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/multigrid/line_multigrid.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "grid/stencil.hpp"
#include "solver/ghost_self.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/multigrid/driver_impl.hpp"
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

}  // namespace

// The line multigrid's level operator (solver/multigrid/hierarchy.hpp has the contract):
// zebra vertical lines, x and y halved, the coarsest level smoothed (coarsest_sweeps).
template <class S>
class LineRelaxation {
 public:
  struct Work {
    Field<S> c, d;  // the Thomas sweep's c' and d' on each level
  };
  using value_type = S;
  using Options = LineMultigridOptions;
  using Level = MultigridLevel<S, Work>;
  static constexpr const char* name = "line mg";
  // x's ghosts filled after each coarse correction, before the smoother fills those it reads.
  static constexpr bool fills_after_correction = true;
  static constexpr bool coarsest_on_the_ranks = true;  // smoothed, its halos exchanged
  static constexpr bool relaxes_first_ghost_layer = false;  // one ghost layer: an exchange a colour
  // Traffic: a zebra sweep reads x and b and writes and reads back c' and d' and writes x. Its
  // model counts the last level on the ranks as the coarsest (nothing for levels gathered).
  static constexpr int sweep_arrays = 7;
  static constexpr bool counts_gathered_levels = false;
  double coarsest_bytes(double array, const Grid&) const { return opt_.coarsest_sweeps * sweep_arrays * array; }

  static std::vector<std::array<int, 3>> shapes(const std::array<int, 3>& n) { return line_multigrid_levels(n); }
  static bool on_host(const Backend&, const std::array<int, 3>&, std::size_t, const Options&) { return false; }
  // c' and d' on every level; on rank 0 the x = 0 the gathered level's restriction reads,
  // and that level's z tables (a grid of its own).
  static double level_bytes(double array, double, bool) { return 2 * array; }
  static double gathered_bytes(const Layout& whole) { return double(whole.size) * sizeof(S) + z_table_bytes(whole); }

  explicit LineRelaxation(const Options& opt) : opt_(opt) {}

  void add_level(Level& L, bool) {
    if (L.bc.periodic(2) && L.grid.layout.n[2] > 1)
      throw std::invalid_argument("line multigrid: the vertical lines need walls at z_lo and z_hi, not a periodic z");
    L.work.c = zeroed<S>(L.backend, L.grid, "line mg c'");
    L.work.d = zeroed<S>(L.backend, L.grid, "line mg d'");
  }
  void add_gathered(const Grid& whole, const Backend& alone) {
    whole.template z_view<S>(alone);  // the restriction reads the whole level's z tables
    zero_ = zeroed<S>(alone, whole, "line mg zero");
  }

  void relax(Level& L, const GhostSelf<S>& self, int colour, bool) const {
    relax_lines(L.grid, L.backend, *L.x, *L.b, L.work.c, L.work.d, self, colour, S(opt_.omega), opt_.shift);
  }
  void restrict_residual(const Level& F, const Level& C, Field<S>& out) const {
    restrict_line_residual_to(F.grid, C.grid, F.backend, C.halved.data(), *F.x, *F.b, out, opt_.shift);
  }
  // Only below the gathered level (the line multigrid has no FMG): restricted as the fused
  // kernel restricts b - L x, here with x = 0.
  void restrict_rhs(const Grid& fine, const Grid& coarse, const Backend& be, const std::array<int, 3>& halved,
                    const Field<S>& b, Field<S>& out) const {
    restrict_line_residual_to(fine, coarse, be, halved.data(), zero_, b, out, opt_.shift);
  }
  // x += the coarse correction e, interpolated bilinearly in x and y.
  void prolong(const Grid& fine, const Grid& coarse, const Backend& be, const std::array<int, 3>& halved,
               const Field<S>& e, Field<S>& x) const {
    const View<const S> ev = e.cview();
    const View<S> xv = x.view();
    const std::ptrdiff_t sc1 = coarse.layout.sy, sc2 = coarse.layout.sz;
    const std::ptrdiff_t sy = fine.layout.sy, sz = fine.layout.sz;
    const int c0 = halved[0], c1 = halved[1];
    for_each(be, fine.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const int c[3] = {c0, c1, 0};
      const std::ptrdiff_t sc[3] = {1, sc1, sc2};
      xv[i + j * sy + k * sz] += prolong_trilinear<S>(ev, i, j, k, sc, c);
    }, "line multigrid prolong");
  }
  void residual(const Level& F, Field<S>& r) const {
    line_residual_into(F.grid, F.backend, opt_.shift, *F.x, *F.b, nullptr, r);
  }
  void solve_coarsest(Level& C, bool x_zero) const {
    smooth(C.grid, *C.x, C.bc, opt_.coarsest_sweeps, x_zero,
           [&](const GhostSelf<S>& self, int colour, bool) { relax(C, self, colour, false); });
  }

  // The fine level in the fields' precision: volume means, the line operator with its shift.
  static bool singular(const FieldBC& bc, const Options& opt) { return bc.singular() && opt.shift == 0; }
  static double rhs_norm(const Grid& g, bool singular, Field<S>& b) {
    if (singular) remove_volume_mean(g, b);
    return max_abs(b, g.layout.interior(Stagger::centre));
  }
  static double residual_norm(const Grid& g, const Backend& backend, const Options& opt, const Field<S>& x,
                              const Field<S>& b) {
    return line_residual_norm(g, backend, opt.shift, x, b);
  }
  template <class T>
  static void defect_into(const Grid& g, const Options& opt, const Field<S>& x, const Field<S>& b, Field<T>& out) {
    if constexpr (std::is_same_v<T, S>) line_residual_into(g, x.backend(), opt.shift, x, b, nullptr, out);
    else throw std::logic_error("line multigrid: no cycles in another precision");
  }
  static void remove_mean(const Grid& g, Field<S>& x) { remove_volume_mean(g, x); }

 private:
  Options opt_;
  Field<S> zero_;
};

template <class R>
double LineMultigrid<R>::estimate_memory(const Grid& fine, std::size_t value_bytes, const LineMultigridOptions& opt) {
  double bytes = 0, on_host = 0;
  if (value_bytes == sizeof(float))
    add_hierarchy_bytes<LineRelaxation<float>>(Backend::cpu(), fine, opt, value_bytes, false, bytes, on_host);
  else
    add_hierarchy_bytes<LineRelaxation<double>>(Backend::cpu(), fine, opt, value_bytes, false, bytes, on_host);
  return bytes;
}


namespace {
// Both maxima at once, NaN propagating as MaxOp's.
struct ResidualNormsOp {
  BOUSS_HD ResidualNorms operator()(const ResidualNorms& a, const ResidualNorms& b) const {
    return {MaxOp{}(a.residual, b.residual), MaxOp{}(a.rhs, b.rhs)};
  }
};
}  // namespace

// The operator a residual applies at (idx, i, j, k): the line operator's (uniform x and y;
// solver/line/line_kernels.hpp), or on a grid stretched along x or y the 7-point flux form of
// every axis's tables (grid/difference_kernels.hpp laplacian, grid/stencil.hpp
// make_general_stencil) with the shift subtracted as the line operator subtracts it.
template <class R>
struct LineOperator {
  LineStencil<R> st;
  View<const R> x;
  BOUSS_HD R operator()(std::ptrdiff_t idx, int, int, int k) const { return line_laplacian(idx, k, x, st); }
};
template <class R>
struct StretchedOperator {
  Stencil<R, ZView<R>, TableXY<R>> st;
  View<const R> x;
  R shift;
  BOUSS_HD R operator()(std::ptrdiff_t idx, int i, int j, int k) const {
    return laplacian<-1>(idx, i, j, k, x, st) - shift * x[idx];
  }
};

// Calls f(op) with the grid's residual operator for x.
template <class R, class F>
auto with_residual_operator(const Grid& g, const Backend& backend, double shift, const Field<R>& x, F&& f) {
  if (g.stretched_horizontally()) return f(StretchedOperator<R>{make_general_stencil<R>(g, backend), x.cview(), R(shift)});
  return f(LineOperator<R>{make_line_stencil<R>(g, backend, shift), x.cview()});
}

template <class R>
struct ResidualNormsWith {
  const Grid& g;
  const Backend& backend;
  const Field<R>& b;
  const double* b_offset;
  template <class Op>
  ResidualNorms operator()(const Op& op) const {
    const View<const R> bv = b.cview();
    const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
    const double* offset = b_offset;
    return reduce(backend, g.layout.interior(Stagger::centre), ResidualNorms{}, ResidualNormsOp{},
                  [=] BOUSS_HD(int i, int j, int k) {
                    const std::ptrdiff_t idx = i + j * sy + k * sz;
                    const R rhs = bv[idx] - (offset ? R(*offset) : R(0));
                    return ResidualNorms{double(std::fabs(rhs - op(idx, i, j, k))), double(std::fabs(rhs))};
                  }, "line residual norm");
  }
};

template <class R>
struct ResidualInto {
  const Grid& g;
  const Backend& backend;
  const Field<R>& b;
  const double* b_offset;
  Field<R>& r;
  template <class Op>
  int operator()(const Op& op) const {
    const View<const R> bv = b.cview();
    const View<R> rv = r.view();
    const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
    const double* offset = b_offset;
    for_each(backend, g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
      const std::ptrdiff_t idx = i + j * sy + k * sz;
      rv[idx] = bv[idx] - (offset ? R(*offset) : R(0)) - op(idx, i, j, k);
    }, "line residual");
    return 0;
  }
};

template <class R>
ResidualNorms line_residual_norms(const Grid& g, const Backend& backend, double shift, const Field<R>& x,
                                  const Field<R>& b, const double* b_offset) {
  return with_residual_operator(g, backend, shift, x, ResidualNormsWith<R>{g, backend, b, b_offset});
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
  with_residual_operator(g, backend, shift, x, ResidualInto<R>{g, backend, b, b_offset, r});
}
template void line_residual_into<double>(const Grid&, const Backend&, double, const Field<double>&,
                                         const Field<double>&, const double*, Field<double>&);
template void line_residual_into<float>(const Grid&, const Backend&, double, const Field<float>&, const Field<float>&,
                                        const double*, Field<float>&);

template <class R>
LineSolveStart start_line_solve(const Grid& g, const FieldBC& bc, double shift, Field<R>& x, Field<R>& b) {
  LineSolveStart s;
  s.singular = bc.singular() && shift == 0;
  s.bnorm = LineRelaxation<R>::rhs_norm(g, s.singular, b);
  s.constant = s.bnorm == 0 && s.singular;
  if (s.constant) fill(x, 0);
  return s;
}
template LineSolveStart start_line_solve<double>(const Grid&, const FieldBC&, double, Field<double>&, Field<double>&);
template LineSolveStart start_line_solve<float>(const Grid&, const FieldBC&, double, Field<float>&, Field<float>&);

template <class R>
double LineMultigrid<R>::bytes_per_cycle() const {
  return this->direct_->vcycle_bytes(0) + 2 * double(this->grid_.layout.cells()) * sizeof(R);  // + the check
}

template <class R>
double LineMultigrid<R>::bytes_per_solve(const SolveStats& s) const {
  // + the first check and the means
  return s.cycles * bytes_per_cycle() + (2 + mean_removal_arrays) * double(this->grid_.layout.cells()) * sizeof(R);
}

template class MultigridDriver<LineRelaxation, LineMultigridOptions, double>;
template class MultigridDriver<LineRelaxation, LineMultigridOptions, float>;
template class LineMultigrid<double>;
template class LineMultigrid<float>;

}  // namespace bouss