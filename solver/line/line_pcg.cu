// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/line/line_pcg.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "solver/volume_mean.hpp"

namespace bouss {

LinePcgOptions line_pcg_options(const SolverSettings& s) {
  LinePcgOptions o;
  o.shift = s.shift;
  o.max_iterations = int(std::min<long>(long(s.max_cycles) * line_pcg_iterations_per_cycle, 1 << 30));
  return o;
}

template <class R>
struct LinePcg<R>::State {
  Backend backend;
  Field<R> r, z, p[2], q, c;
  double* share = nullptr;  // per column: (p, q) or (r, z), then max|r / dz|
  double* slots = nullptr;  // per iteration: (r, z), (p, q), max|r / dz|
  int slot_count = 0;
  double* rz() const { return slots; }
  double* pq() const { return slots + slot_count; }
  double* rmax() const { return slots + 2 * slot_count; }
  ~State() {
    if (share) backend.deallocate(share);
    if (slots) backend.deallocate(slots);
  }
};

namespace {

// The search direction p = z + beta p_old read at any offset (the first iteration: p = z).
template <class R>
struct Direction {
  View<const R> z, p;
  R beta;
  bool first;
  BOUSS_HD R operator[](std::ptrdiff_t idx) const { return first ? z[idx] : z[idx] + beta * p[idx]; }
};

// Whether the iteration has converged: the last residual on the device at or below the
// target. The kernels of iterations queued after it return at once (the host reads the
// residuals only every check_every iterations), so x stays where the tolerance was met.
struct Converged {
  const double* rmax = nullptr;  // the last iteration's max|r / dz|; null: never
  double target = 0;
  BOUSS_HD bool operator()() const { return rmax && *rmax <= target; }
};

// Sums (or takes the maximum of) the columns' shares into *slot, on the device.
template <class Op>
void reduce_shares(const Backend& be, const double* share, int columns, Op op, double* slot, const char* what) {
  reduce_into(be, Box{{0, 0, 0}, {columns, 1, 1}}, 0.0, op, [=] BOUSS_HD(int i, int, int) { return share[i]; }, slot,
              what);
}

// Kernel 1: p_new = z + beta p_old (beta = rz[0] / rz[-1], slots of this iteration and the
// one before), q = A p_new, and each column's share of (p_new, q).
template <class R>
void direction_and_operator(const Backend& be, const LineStencil<R>& st, const GhostSelf<R>& self,
                            const Field<R>& z, const Field<R>& p_old, Field<R>& p_new, Field<R>& q, double* share,
                            const double* rz, bool first, Converged done) {
  const View<const R> zv = z.cview(), pv = p_old.cview();
  const View<R> pn = p_new.view(), qv = q.view();
  const int nx = st.n[0], nz = st.n[2];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(be, Box{{0, 0, 0}, {nx, st.n[1], 1}}, [=] BOUSS_HD(int i, int j, int) {
    if (done()) return;
    const R beta = first || !(rz[-1] > 0) ? R(0) : R(rz[0] / rz[-1]);
    const Direction<R> d{zv, pv, beta, first};
    const LineSystem<R, Direction<R>, Direction<R>> sys(d, d, st, self, i, j);
    const std::ptrdiff_t base = i + j * sy;
    R below = 0, centre = d[base];
    double dot = 0;
    for (int k = 0; k < nz; ++k) {
      const std::ptrdiff_t idx = base + k * sz;
      const R above = k + 1 < nz ? d[idx + sz] : R(0);
      const R ap = R(st.z.zf[k + 1] - st.z.zf[k]) * sys.apply(k, idx, below, centre, above);
      pn[idx] = centre;
      qv[idx] = ap;
      dot += double(centre) * double(ap);
      below = centre;
      centre = above;
    }
    share[i + j * nx] = dot;
  }, "line pcg direction and operator");
}

// Kernel 2: with update, x += alpha p and r -= alpha q (alpha = rz[0] / pq[0]); then z = M^-1 r
// along the column (the Thomas sweeps, c' in c and d' in z), each column's share of (r, z)
// and of max|r / dz| (share[columns + column]).
template <class R>
void update_and_precondition(const Backend& be, const LineStencil<R>& st, const GhostSelf<R>& self, Field<R>* x,
                             const Field<R>& p, const Field<R>& q, Field<R>& r, Field<R>& z, Field<R>& c, double* share,
                             const double* rz, const double* pq, bool update, Converged done) {
  const View<const R> pv = p.cview(), qv = q.cview();
  const View<R> xv = update ? x->view() : View<R>{}, rv = r.view(), zv = z.view(), cv = c.view();
  const int nx = st.n[0], nz = st.n[2], columns = st.n[0] * st.n[1];
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(be, Box{{0, 0, 0}, {nx, st.n[1], 1}}, [=] BOUSS_HD(int i, int j, int) {
    if (done()) return;
    const R alpha = update && pq[0] > 0 ? R(rz[0] / pq[0]) : R(0);
    const LineSystem<R, View<const R>, View<const R>> sys(qv, qv, st, self, i, j);  // its rows only
    const std::ptrdiff_t base = i + j * sy;
    double rmax = 0, rz_share = 0;
    const auto rhs = [&](int k, std::ptrdiff_t idx) {
      R res = rv[idx];
      if (update) {
        xv[idx] += alpha * pv[idx];
        res -= alpha * qv[idx];
        rv[idx] = res;
      }
      const R scaled = res * st.z.rdz[k];  // M z = r is the line's rows times dz: rows z = r / dz
      rmax = MaxOp{}(rmax, double(std::fabs(scaled)));
      return scaled;
    };
    thomas_sweeps<R>(nz, sys, rhs, zv, cv, base, sz, [&](std::ptrdiff_t idx, R v) {
      zv[idx] = v;
      rz_share += double(v) * double(rv[idx]);
    });
    share[i + j * nx] = rz_share;
    share[columns + i + j * nx] = rmax;
  }, "line pcg update and line solve");
}

// The residual of CG's system A x = f (A = -V L_0, f = -V (b - L x + L_0 x)): r = V (L x - b),
// x's ghosts filled.
template <class R>
void weighted_residual(const Grid& g, const Backend& be, const LineStencil<R>& st, const Field<R>& x,
                       const Field<R>& b, Field<R>& r) {
  const View<const R> xv = x.cview(), bv = b.cview();
  const View<R> rv = r.view();
  const std::ptrdiff_t sy = st.s[1], sz = st.s[2];
  for_each(be, g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    const std::ptrdiff_t idx = i + j * sy + k * sz;
    rv[idx] = (line_laplacian(idx, k, xv, st) - bv[idx]) / st.z.rdz[k];
  }, "line pcg residual");
}

}  // namespace

template <class R>
LinePcg<R>::LinePcg(const Backend& backend, const Grid& grid, const FieldBC& bc, LinePcgOptions opt)
    : backend_(backend), grid_(grid), bc_(bc), opt_(opt), s_(std::make_unique<State>()) {
  if (bc.periodic(2) && grid.layout.n[2] > 1)
    throw std::invalid_argument("line pcg: the vertical lines need walls at z_lo and z_hi, not a periodic z");
  if (opt_.max_iterations < 1 || opt_.check_every < 1) throw std::invalid_argument("line pcg: expected positive limits");
  self_ = ghost_self<R>(bc.homogeneous(), grid);
  fills_ = sweeps_read_ghosts(self_);
  grid_.template z_view<R>(backend);
  grid_.template z_view<double>(backend);
  State& s = *s_;
  s.backend = backend;
  for (Field<R>* f : {&s.r, &s.z, &s.p[0], &s.p[1], &s.q, &s.c}) {
    *f = Field<R>(backend, grid.layout, Stagger::centre, "line pcg");
    fill(*f, 0);
  }
  const int columns = grid.layout.n[0] * grid.layout.n[1];
  s.share = static_cast<double*>(backend.allocate(2 * std::size_t(columns) * sizeof(double)));
  s.slot_count = opt_.max_iterations + 1;
  s.slots = static_cast<double*>(backend.allocate(3 * std::size_t(s.slot_count) * sizeof(double)));
}

template <class R>
LinePcg<R>::~LinePcg() = default;

template <class R>
double LinePcg<R>::estimate_memory(const Grid& grid, std::size_t value_bytes, int max_iterations) {
  return 6 * double(grid.layout.size) * value_bytes + 2 * double(grid.layout.n[0]) * grid.layout.n[1] * sizeof(double) +
         3 * double(max_iterations + 1) * sizeof(double);
}

template <class R>
void LinePcg<R>::start(const Field<R>& x, const Field<R>& b, int slot) {
  State& s = *s_;
  const LineStencil<R> st = make_line_stencil<R>(grid_, backend_, opt_.shift);
  const int columns = grid_.layout.n[0] * grid_.layout.n[1];
  weighted_residual(grid_, backend_, st, x, b, s.r);
  update_and_precondition<R>(backend_, st, self_, nullptr, s.p[0], s.q, s.r, s.z, s.c, s.share, s.rz() + slot,
                             s.pq() + slot, false, Converged{});
  if (fills_) fill_ghosts(s.z, bc_.homogeneous(), grid_);
  reduce_shares(backend_, s.share, columns, SumOp{}, s.rz() + slot, "line pcg (r, z)");
  reduce_shares(backend_, s.share + columns, columns, MaxOp{}, s.rmax() + slot, "line pcg residual");
}

template <class R>
void LinePcg<R>::iterate(Field<R>& x, int it, bool first, double target) {
  State& s = *s_;
  const LineStencil<R> st = make_line_stencil<R>(grid_, backend_, opt_.shift);
  const int columns = grid_.layout.n[0] * grid_.layout.n[1];
  Field<R>&p_old = s.p[it % 2], &p = s.p[(it + 1) % 2];
  direction_and_operator<R>(backend_, st, self_, s.z, p_old, p, s.q, s.share, s.rz() + it, first,
                            Converged{s.rmax() + it, target});
  if (fills_) fill_ghosts(p, bc_.homogeneous(), grid_);
  reduce_shares(backend_, s.share, columns, SumOp{}, s.pq() + it, "line pcg (p, q)");
  update_and_precondition<R>(backend_, st, self_, &x, p, s.q, s.r, s.z, s.c, s.share, s.rz() + it, s.pq() + it, true,
                             Converged{s.rmax() + it, target});
  if (fills_) fill_ghosts(s.z, bc_.homogeneous(), grid_);
  reduce_shares(backend_, s.share, columns, SumOp{}, s.rz() + it + 1, "line pcg (r, z)");
  reduce_shares(backend_, s.share + columns, columns, MaxOp{}, s.rmax() + it + 1, "line pcg residual");
}

template <class R>
std::vector<double> LinePcg<R>::residuals(int from, int to) const {
  std::vector<double> out(std::size_t(to - from + 1));
  copy_bytes(out.data(), Backend::cpu(), s_->rmax() + from, backend_, out.size() * sizeof(double));
  return out;
}

template <class R>
double LinePcg<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return line_residual_norm(grid_, backend_, opt_.shift, x, b);
}

template <class R>
SolveStats LinePcg<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const LineSolveStart start_state = start_line_solve(grid_, bc_, opt_.shift, x, b);
  if (start_state.constant) return SolveMonitor::constant_solution();
  const bool singular = start_state.singular;
  const double bnorm = start_state.bnorm;
  SolveStats stats;
  const double target = tolerance * (bnorm > 0 ? bnorm : 1.0);
  SolveMonitor monitor(stats, bnorm, tolerance, false);
  fill_ghosts(x, bc_, grid_);
  // Slots: it is the next iteration's; read_from the first residual the host has not seen.
  int it = 0, restarts = 0, read_from = 0, iterations = 0;
  bool first = true, truly_converged = false;
  start(x, b, 0);
  for (;;) {
    const int batch = std::min(opt_.check_every, opt_.max_iterations - it);
    for (int n = 0; n < batch; ++n, ++it) {
      iterate(x, it, first, target);
      first = false;
    }
    // The residuals up to the first at the target: the iterations after it did nothing.
    bool go_on = true;
    int last = read_from - 1;
    for (double r : residuals(read_from, it)) {
      ++last;
      go_on = monitor.record(r) && go_on;
      if (!go_on || !monitor.above_target()) break;
    }
    iterations += std::max(0, (monitor.above_target() ? it : last) - std::max(read_from - 1, 0));
    read_from = it + 1;
    if (!go_on) break;
    if (!monitor.above_target()) {
      // The recursion's residual says converged: check the true one.
      fill_ghosts(x, bc_, grid_);
      if (residual_norm(x, b) <= target) {
        truly_converged = true;
        break;
      }
      if (restarts == 2 || it == opt_.max_iterations) break;
      ++restarts;
      start(x, b, it);
      first = true;
    }
    if (it == opt_.max_iterations) break;
  }
  stats.cycles = iterations;
  if (singular) remove_volume_mean(grid_, x);
  fill_ghosts(x, bc_, grid_);
  monitor.finish();
  stats.converged = stats.converged && truly_converged;
  return stats;
}

template <class R>
double LinePcg<R>::bytes_per_iteration() const {
  const double cells = double(grid_.layout.cells()), columns = double(grid_.layout.n[0]) * grid_.layout.n[1];
  return 16 * cells * sizeof(R) + 3 * columns * sizeof(double) * 2;  // the shares written and read
}

template <class R>
double LinePcg<R>::useful_bytes_per_iteration() const {
  return 15 * double(grid_.layout.cells()) * sizeof(R);
}

template <class R>
double LinePcg<R>::bytes_per_solve(const SolveStats& s) const {
  // The start: x and b read, r written, then kernel 2 without the update (r read, c' and
  // d' written and read, z written, r read again: 7); the final check reads x and b.
  const double cells = double(grid_.layout.cells());
  return s.cycles * bytes_per_iteration() + (3 + 7 + 2 + mean_removal_arrays) * cells * sizeof(R);
}

template class LinePcg<double>;
template class LinePcg<float>;

}  // namespace bouss
