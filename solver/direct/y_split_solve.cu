// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/y_split_solve.hpp"

#include <algorithm>
#include <type_traits>
#include <stdexcept>
#include <vector>

#include "grid/decomposition.hpp"
#include "grid/device_messages.hpp"
#include "grid/for_each.hpp"
#include "solver/direct/cosine_kernels.hpp"
#include "solver/direct/y_split_kernels.hpp"

namespace bouss {

namespace {

// The spectrum's layout on a block: x fastest (nx), then its m rows, then the nz levels.
BOUSS_HD inline std::ptrdiff_t spectrum_at(int i, int r, int k, int nx, int m) {
  return i + std::ptrdiff_t(nx) * (r + std::ptrdiff_t(m) * k);
}

// The pinned (0, 0) mode's y line of a singular problem, whole (ny rows): row 0 says x_0 = 0
// (the solution fixed up to the constant the mean removal takes out); the others the y
// difference, a wall's folded, a periodic y's coupling to x_0 dropped (x_0 = 0).
template <class S>
struct PinnedYRows {
  S a;
  int ny;
  bool walled;
  BOUSS_HD TriRow<S> operator()(int j) const {
    if (j == 0) return {S(0), S(1), S(0)};
    TriRow<S> row{a, -2 * a, a};
    if (j == ny - 1) {
      row.upper = S(0);
      if (walled) row.diag += a;
    }
    return row;
  }
};

// Each mode's eigenvalue: x's in its transform's order, plus z's cosine mode's (z walled and
// transformed) or nothing (one level).
struct ModeEigen {
  AxisTransform xk;
  bool z;
  int nx, nz;
  double rx2, rz2;
  BOUSS_HD double operator()(int i, int k) const {
    return axis_laplacian_eigenvalue(xk, i, nx, rx2) + (z ? walled_laplacian_eigenvalue(k, nz, rz2) : 0.0);
  }
};

// Each mode's rows' reciprocal pivots (the final solve's), and the end values of its spikes:
// the block's solutions for -a beyond its first row (sL) and beyond its last (sR), the
// coupling's coefficient moved to the right-hand side, each end by elimination from the top
// and from the bottom (nothing else of them is kept): 4 nx nz values into `ends` (sL first,
// sL last, sR first, sR last, each by mode) for the all-gather.
template <class R>
void pivots_and_spike_ends(const Backend& be, int nx, int nz, int m, YSplitRows<R> rows0, ModeEigen eigen, R* inv,
                           R* ends) {
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * nz;
  for_each(be, Box{{0, 0, 0}, {nx, nz, 1}}, [=] BOUSS_HD(int i, int k, int) {
    YSplitRows<R> rows = rows0;
    rows.lambda = R(eigen(i, k));
    const std::ptrdiff_t mode = i + std::ptrdiff_t(nx) * k;
    thomas_factor_line<R>(m, rows, inv, spectrum_at(i, 0, k, nx, m), nx);
    for (int side = 0; side < 2; ++side) {  // sL, sR
      const int at = side == 0 ? 0 : m - 1;
      R cp = R(0), dp = R(0);
      for (int r = 0; r < m; ++r) y_split_eliminate(rows(r), r == at ? -rows.a : R(0), cp, dp);
      const R last = dp;
      cp = R(0), dp = R(0);
      for (int r = m - 1; r >= 0; --r) y_split_eliminate(y_split_reversed(rows(r)), r == at ? -rows.a : R(0), cp, dp);
      ends[(2 * side) * md + mode] = dp;
      ends[(2 * side + 1) * md + mode] = last;
    }
  }, "y split: pivots and spike ends");
}

// The y-line kernels' view of the spectrum, one thread an x mode i and a z orbit kk: along a
// transformed z the walled transform's half spectrum (the z FFT's, interleaved lines
// i + nx r), whose orbit map (cosine_kernels.hpp) gives the cosine modes kk and nz - kk (one
// where they coincide) as the thread reads a row and takes them back as it writes one;
// without z lines (one level) the spectrum itself, one mode.
template <class R>
struct ZOrbits {
  bool z;
  int nx, nz, m;
  Complex<R>* half;
  R* spec;
  const Complex<R>* tw;
  BOUSS_HD int orbits() const { return z ? nz / 2 + 1 : 1; }
  // The orbit's modes (z indices) into k: the same one twice where they coincide (solved
  // twice alike: the kernels' loops stay of two modes, unrolled, their arrays in registers).
  BOUSS_HD void modes(int kk, int k[2]) const {
    const AxisPair p{AxisTransform::walled, kk, nz};
    k[0] = z ? p.at(0) : 0;
    k[1] = z ? p.at(1) : 0;
  }
  BOUSS_HD OrbitMap<R> map(int kk, const Complex<R>* unit) const {
    return z ? OrbitMap<R>(AxisPair{AxisTransform::walled, kk, nz}, AxisPair{AxisTransform::periodic, 0, 1}, tw, tw)
             : OrbitMap<R>(AxisPair{AxisTransform::periodic, 0, 1}, AxisPair{AxisTransform::periodic, 0, 1}, unit, unit);
  }
  BOUSS_HD std::ptrdiff_t half_at(int i, int r, int kk) const {
    return line_half_at(false, i + nx * r, kk, nz / 2 + 1, nx * m);
  }
  // A row's value as stored (issued ahead of its use), then the orbit's two mode values of it.
  BOUSS_HD Complex<R> raw(int i, int r, int kk) const {
    return z ? half[half_at(i, r, kk)] : Complex<R>{spec[spectrum_at(i, r, 0, nx, m)], R(0)};
  }
  BOUSS_HD void values(const OrbitMap<R>& map, Complex<R> v, R y[2]) const {
    if (!z) {
      y[0] = y[1] = v.re;
      return;
    }
    R out[2][2];
    map.forward(v, v, out);
    y[0] = out[0][0];
    y[1] = out[1][0];
  }
  BOUSS_HD void store(const OrbitMap<R>& map, int i, int r, int kk, const R x[2]) const {
    if (!z) {
      spec[spectrum_at(i, r, 0, nx, m)] = x[0];
      return;
    }
    const R in[2][2] = {{x[0], x[0]}, {x[1], x[1]}};
    Complex<R> a, b;
    map.inverse(in, a, b);
    half[half_at(i, r, kk)] = a;
  }
};

// A sweep over n rows (r0, r0 + step, ...) whose loads do not wait on it: the next Ahead
// rows' loads in flight while a row is used (tridiagonal_kernels.hpp's sweeps do the same;
// waiting for each row's load in turn leaves a sweep latency-bound). load(r) -> T, use(r, T).
template <class T, int Ahead = thomas_factored_ahead, class Load, class Use>
BOUSS_HD inline void rows_ahead(int n, int r0, int step, const Load& load, const Use& use) {
  T buf[Ahead];
  BOUSS_UNROLL
  for (int q = 0; q < Ahead; ++q) buf[q] = q < n ? load(r0 + q * step) : T{};
  BOUSS_UNROLL_8
  for (int t = 0; t < n; ++t) {
    const T v = buf[0];
    BOUSS_UNROLL
    for (int q = 0; q + 1 < Ahead; ++q) buf[q] = buf[q + 1];
    buf[Ahead - 1] = t + Ahead < n ? load(r0 + (t + Ahead) * step) : T{};
    use(r0 + t * step, v);
  }
}

// Each mode's end values of its block's own solution (b's transform divided by the round
// trip, `scale`): one read of the rows from the top (the last value) and one from the bottom
// (the first), into send (r[0] of every mode, then r[m-1]); a singular problem's (0, 0) rows
// as they are, after them.
template <class R>
void block_ends(const Backend& be, const ZOrbits<R>& zo, YSplitRows<R> rows0, ModeEigen eigen, R scale, bool singular,
                R* send) {
  const int nx = zo.nx, m = zo.m;
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * zo.nz;
  for_each(be, Box{{0, 0, 0}, {nx, zo.orbits(), 1}}, [=] BOUSS_HD(int i, int kk, int) {
    int k[2];
    zo.modes(kk, k);
    const Complex<R> unit{R(1), R(0)};
    const OrbitMap<R> map = zo.map(kk, &unit);
    YSplitRows<R> rows[2] = {rows0, rows0};
    BOUSS_UNROLL for (int s = 0; s < 2; ++s) rows[s].lambda = R(eigen(i, k[s]));
    const bool pinned = singular && i == 0 && kk == 0;
    R cp[2] = {R(0), R(0)}, dp[2] = {R(0), R(0)};
    const auto load = [&](int r) { return zo.raw(i, r, kk); };
    rows_ahead<Complex<R>>(m, 0, 1, load, [&](int r, Complex<R> v) {
      R y[2];
      zo.values(map, v, y);
      if (pinned) send[2 * md + r] = y[0];
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) y_split_eliminate(rows[s](r), y[s] * scale, cp[s], dp[s]);
    });
    BOUSS_UNROLL for (int s = 0; s < 2; ++s) send[md + i + std::ptrdiff_t(nx) * k[s]] = dp[s];
    cp[0] = cp[1] = dp[0] = dp[1] = R(0);
    rows_ahead<Complex<R>>(m, m - 1, -1, load, [&](int r, Complex<R> v) {
      R y[2];
      zo.values(map, v, y);
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) y_split_eliminate(y_split_reversed(rows[s](r)), y[s] * scale, cp[s], dp[s]);
    });
    BOUSS_UNROLL for (int s = 0; s < 2; ++s) send[i + std::ptrdiff_t(nx) * k[s]] = dp[s];
  }, "y split: the blocks' ends");
}

// Each mode's ends' system (y_split_kernels.hpp; N = 2 x the ranks) from the gathered block
// ends (`all`: a rank's slot holds its r[0] of every mode, then its r[m-1]) and every rank's
// spike ends gives this block's neighbours' end values beyond its first and last rows; with
// them on the right-hand side the block's rows are solved (the stored pivots; d' staged in
// spec) and written back through the orbit map. The singular problem's (0, 0) mode is left
// to its whole line.
template <class R, int N>
void join_and_solve(const Backend& be, const ZOrbits<R>& zo, YSplitRows<R> rows0, ModeEigen eigen, R scale, int rank,
                    bool periodic, bool singular, const R* all, const R* ends, const R* inv, std::ptrdiff_t slot) {
  const int nx = zo.nx, m = zo.m;
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * zo.nz;
  R* const dstage = zo.spec;
  for_each(be, Box{{0, 0, 0}, {nx, zo.orbits(), 1}}, [=] BOUSS_HD(int i, int kk, int) {
    int k[2];
    zo.modes(kk, k);
    const Complex<R> unit{R(1), R(0)};
    const OrbitMap<R> map = zo.map(kk, &unit);
    YSplitRows<R> rows[2] = {rows0, rows0};
    R left[2] = {R(0), R(0)}, right[2] = {R(0), R(0)};
    BOUSS_UNROLL for (int s = 0; s < 2; ++s) {
      rows[s].lambda = R(eigen(i, k[s]));
      const std::ptrdiff_t mode = i + std::ptrdiff_t(nx) * k[s];
      if (singular && mode == 0) continue;
      const auto end = [&](int q, int c) {
        return c < 2 ? all[q * slot + c * md + mode] : ends[(std::ptrdiff_t(q) * 4 + (c - 2)) * md + mode];
      };
      y_split_ends<R, N>(rank, periodic, end, left[s], right[s]);
    }
    // Forward: each row's value and its modes' pivots loaded ahead; d' staged.
    struct Ahead {
      Complex<R> v;
      R inv[2];
    };
    R dp[2] = {R(0), R(0)};
    rows_ahead<Ahead>(m, 0, 1, [&](int r) {
      Ahead a{zo.raw(i, r, kk), {R(0), R(0)}};
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) a.inv[s] = inv[spectrum_at(i, r, k[s], nx, m)];
      return a;
    }, [&](int r, const Ahead& a) {
      R y[2];
      zo.values(map, a.v, y);
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) {
        R rhs = y[s] * scale;
        if (r == 0) rhs -= rows0.a * left[s];
        if (r == m - 1) rhs -= rows0.a * right[s];
        dp[s] = (rhs - rows[s](r).lower * dp[s]) * a.inv[s];
        dstage[spectrum_at(i, r, k[s], nx, m)] = dp[s];
      }
    });
    // Backward: d' and the pivots of the rows below loaded ahead; each row's solution written
    // through the orbit map.
    struct Back {
      R d[2], inv[2];
    };
    R x[2] = {dp[0], dp[1]};
    zo.store(map, i, m - 1, kk, x);
    rows_ahead<Back>(m - 1, m - 2, -1, [&](int r) {
      Back b{{R(0), R(0)}, {R(0), R(0)}};
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) {
        const std::ptrdiff_t at = spectrum_at(i, r, k[s], nx, m);
        b.d[s] = dstage[at];
        b.inv[s] = inv[at];
      }
      return b;
    }, [&](int r, const Back& b) {
      BOUSS_UNROLL for (int s = 0; s < 2; ++s) x[s] = b.d[s] - rows[s](r).upper * b.inv[s] * x[s];
      zo.store(map, i, r, kk, x);
    });
  }, "y split: the ends joined, the blocks' rows solved");
}

// The y cuts (rank q's first row at at[q]), for a kernel.
struct YCuts {
  int at[YSplitSolve<double>::max_ranks + 1];
};

}  // namespace

template <class R>
bool YSplitSolve<R>::takes(const Grid& part) {
  if (!part.decomposition) return false;
  const Decomposition& d = *part.decomposition;
  const int ranks = d.ranks();
  if (ranks < 2 || ranks > max_ranks || d.dims[0] != 1 || d.dims[1] != ranks) return false;
  if (part.stretched(0) || part.stretched(1) || part.stretched(2)) return false;
  const std::vector<int> y = Decomposition::cuts(part.global_n()[1], ranks);
  for (int p = 0; p < ranks; ++p)
    if (y[p + 1] - y[p] < 2) return false;
  return true;
}

template <class R>
R2RLines YSplitSolve<R>::x_lines(const Grid& part) {
  const std::array<int, 3>& nb = part.layout.n;
  return R2RLines{nb[0], std::max(1, nb[1] * nb[2]), {1, nb[0]}};
}

template <class R>
R2RLines YSplitSolve<R>::z_lines(const Grid& part) {
  const std::array<int, 3>& nb = part.layout.n;
  return R2RLines{nb[2], nb[0] * nb[1], {nb[0] * nb[1], 1}};
}

template <class R>
double YSplitSolve<R>::line_work_bytes(const Backend& backend, const Grid& part) {
  return double(LineR2R<R>::work_bytes(backend, x_lines(part), false)) +
         (part.layout.n[2] > 1 ? double(LineR2R<R>::work_bytes(backend, z_lines(part), false)) : 0.0);
}

template <class R>
double YSplitSolve<R>::estimate_memory(const Grid& part, std::size_t value_bytes) {
  const std::array<int, 3>& nb = part.layout.n;
  const std::array<int, 3> n = part.global_n();
  const int ranks = part.decomposition->ranks();
  const double modes = double(nb[0]) * nb[2];
  const std::vector<int> y = Decomposition::cuts(n[1], ranks);
  int max_rows = 0;
  for (int p = 0; p < ranks; ++p) max_rows = std::max(max_rows, y[p + 1] - y[p]);
  const double slot = 2 * modes + max_rows;
  // the pivots; every rank's spike ends; the pinned line; the all-gather's own send (the
  // spike ends once, then a pass's slot) and receive (every rank's slot)
  return (modes * nb[1] + 4.0 * ranks * modes + 2.0 * n[1] + std::max(4.0 * modes, slot) +
          ranks * slot) *
         value_bytes;
}

template <class R>
double YSplitSolve<R>::values_per_solve() const {
  const double values = double(nx_) * m_ * nz_, z = z_lines_ ? 2 : 0;
  return (2 + 4 + z + 2 + 6 + z + 4 + 2) * values;
}

template <class R>
YSplitSolve<R>::YSplitSolve(const Backend& backend, const Grid& part, AxisTransform x_kind, bool y_walled)
    : backend_(backend), ranks_(backend.ranks().size()), rank_(backend.ranks().rank()), x_kind_(x_kind),
      y_walled_(y_walled) {
  if (!takes(part) || part.decomposition->ranks() != ranks_)
    throw std::logic_error("YSplitSolve: expected a block of a uniform grid cut along y alone over the backend's ranks");
  const std::array<int, 3> n = part.global_n();
  nx_ = n[0], ny_ = n[1], nz_ = n[2], m_ = part.layout.n[1], y0_ = part.decomposition->offset[1];
  const std::vector<int> y = Decomposition::cuts(ny_, ranks_);
  max_rows_ = 0;
  for (int p = 0; p < ranks_; ++p) max_rows_ = std::max(max_rows_, y[p + 1] - y[p]);
  if (y[rank_] != y0_ || y[rank_ + 1] - y[rank_] != m_)
    throw std::logic_error("YSplitSolve: the blocks are not the decomposition's y cuts");
  z_lines_ = nz_ > 1;
  x_ = std::make_unique<LineR2R<R>>(backend, x_kind, x_lines(part));
  if (z_lines_) z_ = std::make_unique<LineR2R<R>>(backend, AxisTransform::walled, z_lines(part));
  const std::size_t work = std::max(LineR2R<R>::work_values(x_lines(part), false),
                                    z_lines_ ? LineR2R<R>::work_values(z_lines(part), false) : std::size_t(0));
  if (work > std::size_t(part.layout.size) || std::size_t(nx_) * m_ * nz_ > std::size_t(part.layout.size))
    throw std::logic_error("YSplitSolve: the spectrum or the line transforms' work does not fit in an array of the layout");
  const std::size_t values = std::size_t(nx_) * m_ * nz_, modes = std::size_t(this->modes());
  inv_ = static_cast<R*>(backend.allocate(values * sizeof(R)));
  ends_ = static_cast<R*>(backend.allocate(4 * std::size_t(ranks_) * modes * sizeof(R)));
  line_ = static_cast<R*>(backend.allocate(2 * std::size_t(ny_) * sizeof(R)));
  // The all-gather's buffers are the solver's own device memory, not the backend's message
  // buffers: NCCL registers those (NCCL's memory) in a captured graph, and its ring
  // all-gather on them never finished (NCCL 2.28.3, four and two H200s, 2026-11-28); on
  // these it goes through NCCL's staging, a few MB a pass.
  gather_send_ = static_cast<R*>(backend.allocate(std::max(4 * modes, slot()) * sizeof(R)));
  gather_all_ = static_cast<R*>(backend.allocate(std::size_t(ranks_) * slot() * sizeof(R)));
  a_ = 1 / (part.h[1] * part.h[1]);
  rx2_ = 1 / (part.h[0] * part.h[0]), rz2_ = 1 / (part.h[2] * part.h[2]);
  pivots_and_spike_ends<R>(backend, nx_, nz_, m_, rows(), ModeEigen{x_kind_, z_lines_, nx_, nz_, rx2_, rz2_}, inv_,
                           gather_send_);
  allgather_on(backend, gather_send_, 4 * modes * sizeof(R), ends_);
}

template <class R>
YSplitRows<R> YSplitSolve<R>::rows() const {
  return YSplitRows<R>{R(a_), R(0), m_, y_walled_ && rank_ == 0, y_walled_ && rank_ == ranks_ - 1};
}

template <class R>
void YSplitSolve<R>::solve(const Field<R>& f, Field<R>& g, R* staging_a, R* staging_b, double* b_mean) {
  const Backend& be = backend_;
  const int nx = nx_, ny = ny_, nz = nz_, m = m_, ranks = ranks_, rank = rank_;
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * nz, slot = std::ptrdiff_t(this->slot());
  const bool reorder_x = x_->reordered(), reorder_z = z_lines_ && z_->reordered();
  R* const spec = staging_a;
  // 1. The block into the spectrum's layout (Makhoul's order along the walled axes), its x
  // lines and z lines transformed where they lie.
  {
    const View<const R> v = f.cview();
    const std::ptrdiff_t sy = v.sy, sz = v.sz;
    const R* const field = v.origin;
    for_each(be, Box{{0, 0, 0}, {nx, m, nz}}, [=] BOUSS_HD(int i, int r, int k) {
      const int fi = reorder_x ? cosine_reorder_source(i, nx) : i, fk = reorder_z ? cosine_reorder_source(k, nz) : k;
      spec[spectrum_at(i, r, k, nx, m)] = field[fi + r * sy + fk * sz];
    }, "y split: the block into the spectrum's layout");
  }
  x_->forward(spec, staging_b);
  if (z_) z_->forward_half(spec, staging_b);
  // 2. Each mode's end values of its block's own solution (the transforms' round trip divided
  // out), and a singular problem's (0, 0) rows, to the all-gather; z's orbit map applied as
  // the y-line kernels read and write the z lines' half spectrum (staging_b).
  const bool singular = b_mean != nullptr;
  const double round_trip = axis_transform_scale(x_kind_, nx) * (z_lines_ ? axis_transform_scale(AxisTransform::walled, nz) : 1.0);
  const R scale = R(1 / round_trip);
  const ZOrbits<R> zo{z_lines_, nx, nz, m, reinterpret_cast<Complex<R>*>(staging_b), spec, z_ ? z_->twiddles() : nullptr};
  const ModeEigen eigen{x_kind_, z_lines_, nx, nz, rx2_, rz2_};
  block_ends<R>(be, zo, rows(), eigen, scale, singular, gather_send_);
  allgather_on(be, gather_send_, std::size_t(slot) * sizeof(R), gather_all_);
  // 3. The ends' system of every mode (the singular (0, 0) mode's apart), and each block's
  // rows solved with its neighbours' end values.
  const bool periodic = !y_walled_;
  const R* const all = gather_all_;
  const auto join = [&](auto n) {
    join_and_solve<R, decltype(n)::value>(be, zo, rows(), eigen, scale, rank, periodic, singular, all, ends_, inv_, slot);
  };
  switch (ranks) {
    case 2: join(std::integral_constant<int, 4>{}); break;
    case 3: join(std::integral_constant<int, 6>{}); break;
    case 4: join(std::integral_constant<int, 8>{}); break;
    case 5: join(std::integral_constant<int, 10>{}); break;
    case 6: join(std::integral_constant<int, 12>{}); break;
    case 7: join(std::integral_constant<int, 14>{}); break;
    default: join(std::integral_constant<int, 16>{}); break;
  }
  // 4. The singular problem's (0, 0) line, whole on every rank: b's mean out (its value the
  // volume mean times the x and z sums of a plane: nx nz, times 2 along a cosine transform),
  // pinned, solved, the solution's mean out, this rank's rows kept.
  if (singular) {
    R* const line = line_;  // ny values, then ny of c'
    const std::vector<int> cut = Decomposition::cuts(ny, ranks);
    YCuts cuts{};
    for (int q = 0; q <= ranks; ++q) cuts.at[q] = cut[std::size_t(q)];
    const double plane = double(nx) * (x_kind_ == AxisTransform::walled ? 2 : 1) * nz * (z_lines_ ? 2 : 1);
    const int y0 = y0_;
    const R a = R(a_);
    for_each(be, Box{{0, 0, 0}, {1, 1, 1}}, [=] BOUSS_HD(int, int, int) {
      // the ranks' rows in y order
      double sum = 0;
      for (int q = 0; q < ranks; ++q)
        for (int j = cuts.at[q]; j < cuts.at[q + 1]; ++j) {
          const R v = all[q * slot + 2 * md + (j - cuts.at[q])];
          line[j] = v;
          sum += double(v);
        }
      const double mean = sum / ny;
      *b_mean = mean / plane;
      const PinnedYRows<R> pinned{a, ny, !periodic};
      const auto rhs = [&](int j, std::ptrdiff_t idx) { return j == 0 ? R(0) : R((double(line[idx]) - mean) * double(scale)); };
      const auto store = [&](std::ptrdiff_t idx, R v) { line[idx] = v; };
      thomas_sweeps<R, R>(ny, pinned, rhs, line, line + ny, 0, 1, store);
      double xs = 0;
      for (int j = 0; j < ny; ++j) xs += double(line[j]);
      const R x_mean = R(xs / ny);
      const Complex<R> unit{R(1), R(0)};
      const OrbitMap<R> map = zo.map(0, &unit);
      for (int r = 0; r < m; ++r) {
        const R x[2] = {line[y0 + r] - x_mean, line[y0 + r] - x_mean};
        zo.store(map, 0, r, 0, x);
      }
    }, "y split: the (0, 0) line");
  }
  if (z_) z_->inverse_half(staging_b, spec);
  // 5. Back: x's inverse transform, the spectrum's layout into g's block.
  x_->inverse(spec, staging_b);
  {
    const View<R> v = g.view();
    const std::ptrdiff_t sy = v.sy, sz = v.sz;
    R* const field = v.origin;
    for_each(be, Box{{0, 0, 0}, {nx, m, nz}}, [=] BOUSS_HD(int i, int r, int k) {
      const int si = reorder_x ? cosine_reorder_target(i, nx) : i, sk = reorder_z ? cosine_reorder_target(k, nz) : k;
      field[i + r * sy + k * sz] = spec[spectrum_at(si, r, sk, nx, m)];
    }, "y split: the spectrum's layout into the block");
  }
}

template <class R>
YSplitSolve<R>::~YSplitSolve() {
  backend_.deallocate(inv_);
  backend_.deallocate(ends_);
  backend_.deallocate(line_);
  backend_.deallocate(gather_send_);
  backend_.deallocate(gather_all_);
}

template class YSplitSolve<double>;
template class YSplitSolve<float>;

}  // namespace bouss
