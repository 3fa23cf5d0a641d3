// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/y_split_solve.hpp"

#include <algorithm>
#include <type_traits>
#include <stdexcept>
#include <vector>

#include "grid/decomposition.hpp"
#include "grid/device_messages.hpp"
#include "grid/for_each.hpp"
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

// Each mode's rows' reciprocal pivots, and its spikes: the block's solutions for -a beyond its
// first row (sl) and beyond its last (sr), the coupling's coefficient moved to the right-hand
// side; their first and last values into `ends` (4 nx nz values: sL first, sL last, sR
// first, sR last, each by mode), for the all-gather.
template <class R>
void pivots_and_spikes(const Backend& be, int nx, int nz, int m, YSplitRows<R> rows0, ModeEigen eigen, R* inv, R* sl,
                       R* sr, R* ends) {
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * nz;
  for_each(be, Box{{0, 0, 0}, {nx, nz, 1}}, [=] BOUSS_HD(int i, int k, int) {
    YSplitRows<R> rows = rows0;
    rows.lambda = R(eigen(i, k));
    const std::ptrdiff_t base = spectrum_at(i, 0, k, nx, m), mode = i + std::ptrdiff_t(nx) * k;
    thomas_factor_line<R>(m, rows, inv, base, nx);
    const auto none = [](int, std::ptrdiff_t) { return R(0); };
    const auto store_l = [&](std::ptrdiff_t idx, R v) { sl[idx] = v; };
    const auto store_r = [&](std::ptrdiff_t idx, R v) { sr[idx] = v; };
    thomas_sweeps_factored<R, R>(m, rows, none, [&](int r, R) { return r == 0 ? -rows.a : R(0); }, sl, inv, base, nx,
                                 store_l);
    thomas_sweeps_factored<R, R>(m, rows, none, [&](int r, R) { return r == m - 1 ? -rows.a : R(0); }, sr, inv, base,
                                 nx, store_r);
    const std::ptrdiff_t last = spectrum_at(i, m - 1, k, nx, m);
    ends[mode] = sl[base];
    ends[md + mode] = sl[last];
    ends[2 * md + mode] = sr[base];
    ends[3 * md + mode] = sr[last];
  }, "y split: pivots and spikes");
}

// Each mode's ends' system (y_split_kernels.hpp; N = 2 x the ranks) from the gathered block
// ends (`all`: a rank's slot holds its r[0] of every mode, then its r[m-1]) and every rank's
// spike ends: this rank's left and right neighbours' end values into joins (the singular
// problem's (0, 0) mode left at 0: its line is solved whole).
template <class R, int N>
void join_ends(const Backend& be, int nx, int nz, int rank, bool periodic, bool singular, const R* all, const R* ends,
               R* joins, std::ptrdiff_t slot) {
  const std::ptrdiff_t md = std::ptrdiff_t(nx) * nz;
  for_each(be, Box{{0, 0, 0}, {nx, nz, 1}}, [=] BOUSS_HD(int i, int k, int) {
    const std::ptrdiff_t mode = i + std::ptrdiff_t(nx) * k;
    R left = R(0), right = R(0);
    if (!(singular && mode == 0)) {
      const auto end = [&](int q, int c) {
        return c < 2 ? all[q * slot + c * md + mode] : ends[(std::ptrdiff_t(q) * 4 + (c - 2)) * md + mode];
      };
      y_split_ends<R, N>(rank, periodic, end, left, right);
    }
    joins[mode] = left;
    joins[md + mode] = right;
  }, "y split: the ends' systems");
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
  // pivots and spikes; every rank's spike ends; the joins and the pinned line; the all-gather's
  // own send (the spike ends once, then a pass's slot) and receive (every rank's slot)
  return (3.0 * modes * nb[1] + 4.0 * ranks * modes + 2.0 * modes + 2.0 * n[1] + std::max(4.0 * modes, slot) +
          ranks * slot) *
         value_bytes;
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
  spikes_ = static_cast<R*>(backend.allocate(2 * values * sizeof(R)));
  ends_ = static_cast<R*>(backend.allocate(4 * std::size_t(ranks_) * modes * sizeof(R)));
  joins_ = static_cast<R*>(backend.allocate((2 * modes + 2 * std::size_t(ny_)) * sizeof(R)));
  // The all-gather's buffers are the solver's own device memory, not the backend's message
  // buffers: NCCL registers those (NCCL's memory) in a captured graph, and its ring
  // all-gather on them never finished (NCCL 2.28.3, four and two H200s, 2026-11-28); on
  // these it goes through NCCL's staging, a few MB a pass.
  gather_send_ = static_cast<R*>(backend.allocate(std::max(4 * modes, slot()) * sizeof(R)));
  gather_all_ = static_cast<R*>(backend.allocate(std::size_t(ranks_) * slot() * sizeof(R)));
  // Each mode's pivots, and its spikes: the block's solutions for -a beyond its first row and
  // beyond its last (the coupling's coefficient moved to the right-hand side).
  const int nx = nx_, m = m_;
  a_ = 1 / (part.h[1] * part.h[1]);
  const R a = R(a_);
  const double rx2 = 1 / (part.h[0] * part.h[0]), rz2 = 1 / (part.h[2] * part.h[2]);
  const bool z = z_lines_, wall_lo = y_walled && rank_ == 0, wall_hi = y_walled && rank_ == ranks_ - 1;
  const AxisTransform xk = x_kind;
  R* const inv = inv_;
  R* const sl = spikes_;
  R* const sr = spikes_ + values;
  const std::size_t mine = 4 * modes;
  R* const send = gather_send_;
  pivots_and_spikes<R>(backend, nx, nz_, m, YSplitRows<R>{a, R(0), m, wall_lo, wall_hi}, ModeEigen{xk, z, nx, nz_, rx2, rz2},
                       inv, sl, sr, send);
  allgather_on(backend, send, mine * sizeof(R), ends_);
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
  if (z_) z_->forward(spec, staging_b);
  // 2. This rank's rows of the (0, 0) mode (a singular problem's) to the all-gather, then each
  // mode's y line solved on the block (the transforms' round trip divided out), its ends to
  // the all-gather.
  R* const send = gather_send_;
  R* const all = gather_all_;
  const bool singular = b_mean != nullptr;
  if (singular)
    for_each(be, Box{{0, 0, 0}, {m, 1, 1}}, [=] BOUSS_HD(int r, int, int) {
      send[2 * md + r] = spec[spectrum_at(0, r, 0, nx, m)];
    }, "y split: the (0, 0) line's rows");
  const double round_trip = axis_transform_scale(x_kind_, nx) * (z_lines_ ? axis_transform_scale(AxisTransform::walled, nz) : 1.0);
  const R scale = R(1 / round_trip);
  const R* const inv = inv_;
  const R a = R(a_);
  const YSplitRows<R> rows0{a, R(0), m, y_walled_ && rank == 0, y_walled_ && rank == ranks - 1};  // lower and upper read
  for_each(be, Box{{0, 0, 0}, {nx, nz, 1}}, [=] BOUSS_HD(int i, int k, int) {
    const YSplitRows<R> rows = rows0;
    const std::ptrdiff_t base = spectrum_at(i, 0, k, nx, m);
    const auto load = [&](int, std::ptrdiff_t idx) { return spec[idx]; };
    const auto store = [&](std::ptrdiff_t idx, R v) { spec[idx] = v; };
    thomas_sweeps_factored<R, R>(m, rows, load, [&](int, R v) { return v * scale; }, spec, inv, base, nx, store);
    const std::ptrdiff_t mode = i + std::ptrdiff_t(nx) * k;
    send[mode] = spec[base];
    send[md + mode] = spec[spectrum_at(i, m - 1, k, nx, m)];
  }, "y split: the blocks' y lines");
  allgather_on(be, send, std::size_t(slot) * sizeof(R), all);
  // 3. The ends' system of every mode (the singular (0, 0) mode's apart), and each block's
  // rows given its neighbours' end values.
  const bool periodic = !y_walled_;
  const R* const ends = ends_;
  R* const joins = joins_;
  switch (ranks) {
    case 2: join_ends<R, 4>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    case 3: join_ends<R, 6>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    case 4: join_ends<R, 8>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    case 5: join_ends<R, 10>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    case 6: join_ends<R, 12>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    case 7: join_ends<R, 14>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
    default: join_ends<R, 16>(be, nx, nz, rank, periodic, singular, all, ends, joins, slot); break;
  }
  const std::ptrdiff_t values = std::ptrdiff_t(nx) * m * nz;
  const R* const sl = spikes_;
  const R* const sr = spikes_ + values;
  for_each(be, Box{{0, 0, 0}, {nx, m, nz}}, [=] BOUSS_HD(int i, int r, int k) {
    const std::ptrdiff_t at = spectrum_at(i, r, k, nx, m), mode = i + std::ptrdiff_t(nx) * k;
    spec[at] += joins[mode] * sl[at] + joins[md + mode] * sr[at];
  }, "y split: the neighbours' ends into the rows");
  // 4. The singular problem's (0, 0) line, whole on every rank: b's mean out (its value the
  // volume mean times the x and z sums of a plane: nx nz, times 2 along a cosine transform),
  // pinned, solved, the solution's mean out, this rank's rows kept.
  if (singular) {
    R* const line = joins_ + 2 * md;  // ny values, then ny of c'
    const std::vector<int> cut = Decomposition::cuts(ny, ranks);
    YCuts cuts{};
    for (int q = 0; q <= ranks; ++q) cuts.at[q] = cut[std::size_t(q)];
    const double plane = double(nx) * (x_kind_ == AxisTransform::walled ? 2 : 1) * nz * (z_lines_ ? 2 : 1);
    const int y0 = y0_;
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
      for (int r = 0; r < m; ++r) spec[spectrum_at(0, r, 0, nx, m)] = line[y0 + r] - x_mean;
    }, "y split: the (0, 0) line");
  }
  // 5. Back: z's and x's inverse transforms, the spectrum's layout into g's block.
  if (z_) z_->inverse(spec, staging_b);
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
  backend_.deallocate(spikes_);
  backend_.deallocate(ends_);
  backend_.deallocate(joins_);
  backend_.deallocate(gather_send_);
  backend_.deallocate(gather_all_);
}

template class YSplitSolve<double>;
template class YSplitSolve<float>;

}  // namespace bouss
