// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/fourier_solver.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "grid/device_messages.hpp"
#include "solver/direct/cosine_kernels.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/line/line_kernels.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "solver/volume_mean.hpp"

namespace bouss {
namespace {

// A spectrum value's real part: the whole value of a real-to-real spectrum.
template <class R>
BOUSS_HD inline R& real_part(Complex<R>& v) {
  return v.re;
}
template <class R>
BOUSS_HD inline R& real_part(R& v) {
  return v;
}

// Each horizontal mode's vertical line solved in place in the spectrum (scaled by -1/(nx ny),
// the transforms' unnormalized round trip: the rows are -L's): mi columns by nj rows of modes
// (rows j0 .. j0 + nj of the whole grid's, every one on one rank; a band of them under
// several: solver/direct/slab_transform.hpp), x fastest, then the rows, then z. `eigen(i, j)` is
// the mode's horizontal eigenvalue (at most 0). For a singular problem the (0, 0) mode
// carries b's volume mean and the solution's: its line takes b's out first (written to
// *b_mean, by the band that holds it) and the solution's after, so neither b nor x needs a pass.
template <class R, class Eigen>
void solve_modes(const Backend& be, const Grid& g, const GhostSelf<R>& self, bool singular, int mi, int j0, int nj,
                 const Eigen& eigen, Complex<R>* spec, R* c, double* b_mean) {
  const std::array<int, 3> n = g.global_n();
  const int nz = n[2];
  const ZView<R> z = g.z_view<R>(be);
  const ZView<double> zd = g.z_view<double>(be);
  const double height = g.length(2), plane = double(n[0]) * n[1];
  const R scale = R(-1.0 / plane);
  const std::ptrdiff_t stride = std::ptrdiff_t(mi) * nj;
  const signed char lo = self.lo[2], hi = self.hi[2];
  for_each(be, Box{{0, 0, 0}, {mi, nj, 1}}, [=] BOUSS_HD(int i, int jb, int) {
    const int j = j0 + jb;
    const R lambda = R(-eigen(i, j));
    const bool pinned = singular && i == 0 && j == 0;
    const FourierRows<R> rows{z, nz, lambda, lo, hi, pinned};
    const std::ptrdiff_t base = i + std::ptrdiff_t(mi) * jb;
    // The volume mean of the (0, 0) line's real parts (the plane means' weighted by thickness).
    const auto line_mean = [&] {
      double sum = 0;
      for (int k = 0; k < nz; ++k) sum += double(spec[base + k * stride].re) * (zd.zf[k + 1] - zd.zf[k]);
      return sum / height;
    };
    const auto take_out = [&](double mean) {
      for (int k = 0; k < nz; ++k) spec[base + k * stride].re -= R(mean);
    };
    if (pinned) {
      const double mean = line_mean();  // of b's plane sums
      *b_mean = mean / plane;
      take_out(mean);
    }
    const auto rhs = [&](int k, std::ptrdiff_t idx) { return pinned && k == 0 ? Complex<R>{} : spec[idx] * scale; };
    thomas_sweeps<R, Complex<R>>(nz, rows, rhs, spec, c, base, stride,
                                 [&](std::ptrdiff_t idx, Complex<R> v) { spec[idx] = v; });
    if (pinned) take_out(line_mean());  // the solution's, fixed up to a constant by the pin
  }, "fourier mode solves");
}

// Array access at row k of a line: p[k s].
template <class T>
struct Strided {
  T* p;
  std::ptrdiff_t s;
  BOUSS_HD T& operator[](std::ptrdiff_t k) const { return p[k * s]; }
};

// An orbit's d' at row k, kept in its two slots of the half spectrum (lanes 0 and 2 in a's,
// 1 and 3 in b's; a y side that repeats the other has a's slot alone).
template <class R>
struct OrbitSlots {
  Complex<R>* spec;
  std::ptrdiff_t ia, ib, ps;
  struct Ref {
    Complex<R>* a;
    Complex<R>* b;  // null: the slot is a's
    BOUSS_HD operator OrbitLanes<R>() const {
      const Complex<R> va = *a, vb = b ? *b : va;
      return {va.re, vb.re, va.im, vb.im};
    }
    BOUSS_HD Ref& operator=(const OrbitLanes<R>& v) {
      *a = Complex<R>{v.v[0], v.v[2]};
      if (b) *b = Complex<R>{v.v[1], v.v[3]};
      return *this;
    }
  };
  BOUSS_HD Ref operator[](std::ptrdiff_t k) const { return {spec + ia + k * ps, ib == ia ? nullptr : spec + ib + k * ps}; }
};

// An orbit's c' at row k: each lane at its mode's place in a real array of nx ny nz values
// (a lane that repeats another is not written).
template <class R>
struct OrbitC {
  R* c;
  std::ptrdiff_t at[4], ps;
  bool active[4];
  struct Ref {
    const OrbitC* o;
    std::ptrdiff_t k;
    BOUSS_HD operator OrbitLanes<R>() const {
      const R* row = o->c + k * o->ps;
      return {row[o->at[0]], row[o->at[1]], row[o->at[2]], row[o->at[3]]};
    }
    BOUSS_HD Ref& operator=(const OrbitLanes<R>& v) {
      R* row = o->c + k * o->ps;
      for (int l = 0; l < 4; ++l)
        if (o->active[l]) row[o->at[l]] = v.v[l];
      return *this;
    }
  };
  BOUSS_HD Ref operator[](std::ptrdiff_t k) const { return {this, k}; }
};

// The mode solves of a walled box, fused with the maps between the plane FFTs' half
// spectrum and the real-to-real one (solver/direct/cosine_kernels.hpp): one thread an orbit
// of modes (kx 0 .. nx/2, ky 0 .. ny/2), which reads its two complex values a row, maps them
// to its (at most) four real modes, sweeps the four lines together (each with its own
// eigenvalue) and maps the solution back into the same two values. d' lives in those slots,
// c' in the real array c (nx ny nz values). Scaled by -1/round_trip (the transforms'); for a
// singular problem the (0, 0) mode, an orbit of one, has its mean taken out as solve_modes
// does (`sums`: its value in plane sums, 2 along each walled axis).
template <class R>
void solve_orbits(const Backend& be, const Grid& g, const GhostSelf<R>& self, bool singular,
                  const std::array<AxisTransform, 2>& kinds, Complex<R>* spec, R* c, double* b_mean) {
  const std::array<int, 3> n = g.global_n();
  const int nx = n[0], ny = n[1], nz = n[2], mx = nx / 2 + 1;
  const ZView<R> z = g.z_view<R>(be);
  const ZView<double> zd = g.z_view<double>(be);
  const AxisTransform kx = kinds[0], ky = kinds[1];
  const double sums = (kx == AxisTransform::walled ? 2 : 1) * (ky == AxisTransform::walled ? 2 : 1);
  const double height = g.length(2), plane = double(nx) * ny * sums;
  const R scale = R(-1.0 / (axis_transform_scale(kx, nx) * axis_transform_scale(ky, ny)));
  const double rx2 = 1 / (g.h[0] * g.h[0]), ry2 = 1 / (g.h[1] * g.h[1]);
  const std::ptrdiff_t ps = std::ptrdiff_t(mx) * ny, cs = std::ptrdiff_t(nx) * ny;
  const signed char lo = self.lo[2], hi = self.hi[2];
  for_each(be, Box{{0, 0, 0}, {mx, ny / 2 + 1, 1}}, [=] BOUSS_HD(int i, int j, int) {
    const OrbitMap<R> map(AxisPair{kx, i, nx}, AxisPair{ky, j, ny});
    const std::ptrdiff_t ia = i + std::ptrdiff_t(mx) * j, ib = i + std::ptrdiff_t(mx) * map.y.at(1);
    // A row's real modes, and the solution's back into the slots.
    const auto modes = [&](int k) {
      R y[2][2];
      map.forward(spec[ia + k * ps], spec[ib + k * ps], y);
      return OrbitLanes<R>{y[0][0], y[0][1], y[1][0], y[1][1]};
    };
    const auto store = [&](int k, const OrbitLanes<R>& v) {
      const R y[2][2] = {{v.v[0], v.v[1]}, {v.v[2], v.v[3]}};
      Complex<R> a, b;
      map.inverse(y, a, b);
      spec[ia + k * ps] = a;
      if (ib != ia) spec[ib + k * ps] = b;
    };
    if (singular && i == 0 && j == 0) {
      // The volume mean of the line (its plane sums' weighted by thickness).
      const auto line_mean = [&](const auto& value) {
        double sum = 0;
        for (int k = 0; k < nz; ++k) sum += double(value(k)) * (zd.zf[k + 1] - zd.zf[k]);
        return sum / height;
      };
      const double mean = line_mean([&](int k) { return modes(k).v[0]; });  // b's
      *b_mean = mean / plane;
      const FourierRows<R> rows{z, nz, R(0), lo, hi, true};
      const auto rhs = [&](int k, std::ptrdiff_t) { return k == 0 ? R(0) : (modes(k).v[0] - R(mean)) * scale; };
      const Strided<R> d{&spec[ia].re, 2 * ps}, cc{c, cs};
      thomas_sweeps<R>(nz, rows, rhs, d, cc, 0, 1, [&](std::ptrdiff_t k, R v) { spec[ia + k * ps].re = v; });
      const double x_mean = line_mean([&](int k) { return spec[ia + k * ps].re; });  // the solution's
      for (int k = 0; k < nz; ++k) store(k, OrbitLanes<R>(spec[ia + k * ps].re - R(x_mean)));
      return;
    }
    OrbitRows<R> rows{z, nz, {}, lo, hi};
    OrbitC<R> cc{c, {}, cs, {}};
    for (int sx = 0; sx < 2; ++sx)
      for (int sy = 0; sy < 2; ++sy) {
        const int l = 2 * sx + sy, px = map.x.at(sx), py = map.y.at(sy);
        rows.lambda.v[l] = R(-(axis_laplacian_eigenvalue(kx, px, nx, rx2) + axis_laplacian_eigenvalue(ky, py, ny, ry2)));
        cc.at[l] = px + std::ptrdiff_t(nx) * py;
        cc.active[l] = map.active(sx, sy);
      }
    const auto rhs = [&](int k, std::ptrdiff_t) { return modes(k) * OrbitLanes<R>(scale); };
    thomas_sweeps<OrbitLanes<R>>(nz, rows, rhs, OrbitSlots<R>{spec, ia, ib, ps}, cc, 0, 1,
                                 [&](std::ptrdiff_t k, const OrbitLanes<R>& v) { store(int(k), v); });
  }, "cosine orbit solves");
}

// The periodic plane FFT's modes: wavenumbers 0 .. nx/2 along x, 0 .. ny - 1 along y.
struct PeriodicEigen {
  int nx, ny;
  double rx2, ry2;
  BOUSS_HD double operator()(int i, int j) const {
    return periodic_laplacian_eigenvalue(i, nx, rx2) + periodic_laplacian_eigenvalue(j, ny, ry2);
  }
};
}  // namespace

template <class R>
std::optional<std::string> FourierSolver<R>::refuses(const PressureGrid& g) {
  if (g.periodic_z && g.n[2] > 1)
    return std::string("expected walls at z_lo and z_hi for \"direct\" (its vertical lines are tridiagonal systems "
                       "between walls), got a periodic z");
  return std::nullopt;
}

template <class R>
FourierSolver<R>::FourierSolver(const Backend& backend, const Grid& grid, const FieldBC& bc)
    : backend_(backend), grid_(grid), bc_(bc) {
  if (const auto why = refuses(PressureGrid::of(grid, bc))) throw std::invalid_argument("direct pressure solver: " + *why);
  for (int f = 4; f < 6; ++f)
    if (bc.face[f].kind != BoundaryKind::periodic && (bc.face[f].value != 0 || bc.face[f].slope_z != 0))
      throw std::invalid_argument("direct pressure solver: expected walls without data in z (the pressure's), got a "
                                  "wall value");
  // A horizontal wall is the pressure's: homogeneous Neumann, which the cosine transform takes.
  for (int a = 0; a < 2; ++a) {
    const FaceBC& f = bc.face[2 * a];
    kinds_[a] = f.kind == BoundaryKind::periodic ? AxisTransform::periodic : AxisTransform::walled;
    for (int side = 0; side < 2; ++side) {
      const FaceBC& w = bc.face[2 * a + side];
      if (w.kind != BoundaryKind::periodic && (w.kind != BoundaryKind::gradient || w.value != 0 || w.slope_z != 0))
        throw std::invalid_argument(std::string("direct pressure solver: expected homogeneous Neumann walls in ") + "xy"[a] +
                                    " (the pressure's), got a wall with a value");
    }
  }
  self_ = ghost_self<R>(bc, grid);
  grid_.template z_view<R>(backend);
  grid_.template z_view<double>(backend);
  if (walled()) {
    // Cut over ranks, a walled box is solved whole on rank 0 (the registry's solves_on_blocks).
    if (grid.decomposition && !backend.ranks().alone())
      throw std::logic_error("direct pressure solver: the cosine transforms take the whole grid, not a block");
    cosine_ = std::make_unique<PlaneCosine<R>>(backend, grid.layout, kinds_);
  } else if (grid.decomposition && !backend.ranks().alone()) {
    slabs_ = std::make_unique<SlabTransform<R>>(backend, grid);
    band_ = static_cast<Complex<R>*>(backend.allocate(slabs_->band_size() * sizeof(Complex<R>)));
    band_c_ = static_cast<R*>(backend.allocate(slabs_->band_size() * sizeof(R)));
  } else {
    fft_ = make_plane_fft<R>(backend, grid.layout);
  }
  // The spectrum (2 (nx/2 + 1) ny nz values) fits in one padded array (at least (nx + 3)
  // (ny + 3) (nz + 3) values).
  if (!slabs_ && 2 * spectrum_size(grid.layout) > std::size_t(grid.layout.size))
    throw std::logic_error("direct pressure solver: the spectrum does not fit in an array of the layout");
  b_mean_ = static_cast<double*>(backend.allocate(2 * sizeof(double)));
  work_mean_ = b_mean_ + 1;
  const double zero[2] = {0, 0};
  copy_bytes(b_mean_, backend, zero, Backend::cpu(), sizeof(zero));
}

template <class R>
FourierSolver<R>::~FourierSolver() {
  backend_.deallocate(b_mean_);
  if (band_) backend_.deallocate(band_);
  if (band_c_) backend_.deallocate(band_c_);
}

template <class R>
double FourierSolver<R>::estimate_memory(const Grid& grid, std::size_t value_bytes, bool lent) {
  double bytes = 2 * sizeof(double) + (lent ? 0.0 : LentArrays<R>::capacity * double(grid.layout.size) * value_bytes);
  if (grid.decomposition && grid.decomposition->ranks() > 1) {  // the slab, and this rank's band with its c'
    const std::array<int, 3> n = grid.global_n();
    const int rank = grid.decomposition->rank;
    const std::vector<int> rows = Decomposition::cuts(n[1], grid.decomposition->ranks());
    const double band = double(n[0] / 2 + 1) * (rows[rank + 1] - rows[rank]) * n[2];
    bytes += SlabTransform<R>::estimate_memory(grid, value_bytes) + 3 * band * value_bytes;
  }
  return bytes;
}

// A mean that the band holding the (0, 0) mode (rank 0's) wrote, on every rank.
template <class R>
void FourierSolver<R>::share_mean(double* at) const {
  if (!slabs_) return;
  broadcast_on(backend_, at, sizeof(double), 0);
}

template <class R>
double FourierSolver<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return line_residual_norm(grid_, backend_, 0.0, x, b);
}

template <class R>
SolveStats FourierSolver<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  return solve_with(x, b, tolerance, LentArrays<R>{});
}

template <class R>
LentArrays<R> FourierSolver<R>::arrays(const LentArrays<R>& lent) {
  if (lent.complete()) return lent;
  const char* names[LentArrays<R>::capacity] = {"fft spectrum", "fft c'", "fft refinement"};
  LentArrays<R> own;
  for (int a = 0; a < LentArrays<R>::capacity; ++a) {
    if (!own_[a].data()) own_[a] = Field<R>(backend_, grid_.layout, Stagger::centre, names[a]);
    own.fields[a] = &own_[a];
  }
  return own;
}

// The first pass solves for x from b; each later one solves for the residual's correction
// (in the third lent array) and adds it. Device work alone.
template <class R>
void FourierSolver<R>::pass(int index, Field<R>& x, const Field<R>& b, const LentArrays<R>& work_arrays) {
  // One rank's spectrum and c' in the first two arrays; under ranks the band's, its own.
  Complex<R>* const spectrum = slabs_ ? band_ : reinterpret_cast<Complex<R>*>(work_arrays.fields[0]->data());
  R* const c = slabs_ ? band_c_ : work_arrays.fields[1]->data();
  Field<R>& work = *work_arrays.fields[2];
  const bool singular = bc_.singular();
  const std::ptrdiff_t origin = grid_.layout.origin;
  const int j0 = slabs_ ? slabs_->j0() : 0, nj = slabs_ ? slabs_->nj() : grid_.layout.n[1];
  const std::array<int, 3> n = grid_.global_n();
  const double rx2 = 1 / (grid_.h[0] * grid_.h[0]), ry2 = 1 / (grid_.h[1] * grid_.h[1]);
  // The field f's solve into g (x, or the refinement's correction in place of its residual).
  const auto solve_field = [&](const Field<R>& f, Field<R>& g, double* mean) {
    if (cosine_) {  // the staging array is c's: its planes are transformed before c' is written
      cosine_->to_half_spectrum(f.data() + origin, c, spectrum);
      solve_orbits(backend_, grid_, self_, singular, kinds_, spectrum, c, mean);
      cosine_->from_half_spectrum(spectrum, c, g.data() + origin);
      return;
    }
    if (slabs_) slabs_->forward(f, spectrum);
    else fft_->forward(f.data() + origin, spectrum);
    solve_modes(backend_, grid_, self_, singular, n[0] / 2 + 1, j0, nj, PeriodicEigen{n[0], n[1], rx2, ry2}, spectrum, c,
                mean);
    if (singular) share_mean(mean);
    if (slabs_) slabs_->inverse(spectrum, g);
    else fft_->inverse(spectrum, g.data() + origin);
  };
  if (index == 0) {
    solve_field(b, x, b_mean_);
  } else {
    line_residual_into(grid_, backend_, 0.0, x, b, singular ? b_mean_ : nullptr, work);
    solve_field(work, work, work_mean_);
    add_field(x, work, grid_.layout.interior(Stagger::centre));
  }
  fill_ghosts(x, bc_, grid_);
}

template <class R>
SolveStats FourierSolver<R>::solve_with(Field<R>& x, Field<R>& b, double tolerance, const LentArrays<R>& lent) {
  const LentArrays<R> work_arrays = arrays(lent);
  const bool singular = bc_.singular();
  const double* mean = singular ? b_mean_ : nullptr;
  pass(0, x, b, work_arrays);
  // max|b - mean| (the scale of the relative residual) and the solution's residual, one pass.
  const ResidualNorms first = line_residual_norms(grid_, backend_, 0.0, x, b, mean);
  SolveStats stats;
  if (first.rhs == 0 && singular) {  // the solution is a constant: zero mean
    fill(x, 0);
    return SolveMonitor::constant_solution();
  }
  SolveMonitor monitor(stats, first.rhs, tolerance);
  monitor.record(first.rhs);  // the residual of x = 0
  stats.cycles = 1;
  bool go_on = monitor.record(first.residual);
  // Iterative refinement: in float the direct solve's round-off can leave the residual just
  // above a tolerance that float's residual itself resolves (1.0-1.3e-5 in developed Ra = 1e7
  // convection on the H200); the residual's solve, added to x, takes it below. A pass that
  // gains nothing marks the floor (the monitor's stall rule).
  while (go_on && monitor.above_target() && stats.cycles < max_passes) {
    pass(stats.cycles, x, b, work_arrays);
    ++stats.cycles;
    go_on = monitor.record(line_residual_norm(grid_, backend_, 0.0, x, b, mean));
  }
  monitor.finish();
  // Still above after the refinements: the precision's floor for this b (a direct solve has
  // no more cycles to give), reported as a stall, not as pressure.max_cycles.
  if (!stats.converged) stats.stalled = true;
  return stats;
}

template <class R>
SolveStats FourierSolver<R>::solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) {
  const LentArrays<R> work_arrays = arrays(lent);
  const int n = std::min(std::max(passes, 1), max_passes);
  for (int p = 0; p < n; ++p) pass(p, x, b, work_arrays);
  return SolveStats::unchecked(n);
}

template <class R>
double FourierSolver<R>::bytes_per_solve(const SolveStats& s) const {
  const double cells = double(grid_.layout.cells());
  const double spectrum = 2.0 * double(slabs_ ? slabs_->band_size() : spectrum_size(grid_.layout));
  // the spectrum read, c' (half a spectrum) and d' written, both read back, the solution written
  const double mode_solves = spectrum + spectrum / 2 + spectrum + spectrum / 2 + spectrum + spectrum;
  // A walled box: the reorder each way (a field read and written), and the orbit solves'
  // c' a value per real mode (a field, written and read back) instead of half a spectrum.
  const double reorders = cosine_ ? 4 * cells : 0.0;
  const double orbit_c = cosine_ ? 2 * cells - spectrum : 0.0;
  const double transforms = slabs_ ? 2 * slabs_->bytes_per_transform() / sizeof(R) + mode_solves
                                   : (cells + spectrum) + mode_solves + orbit_c + (spectrum + cells) + reorders;
  // a pass: the transforms and the residual check (x and b read: with max|b - mean| on the
  // first), each refinement also the residual (x, b read, r written) and x += e (3 values)
  // (no residual checks in a solve of fixed passes: SolveStats::checked)
  const double check = s.checked ? 2 * cells : 0.0;
  const double first = transforms + check, refinement = 3 * cells + transforms + 3 * cells + check;
  return (first + std::max(0, s.cycles - 1) * refinement) * sizeof(R);
}

template class FourierSolver<double>;
template class FourierSolver<float>;

}  // namespace bouss
