// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/direct/fourier_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

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

// Each horizontal mode's vertical line solved in place in the spectrum (scaled by -1/round_trip,
// the transforms' unnormalized round trip: the rows are -L's): the lines of `band`
// (solver/direct/mode_band.hpp: every mode on one rank, a band of them under several:
// transposed_planes.hpp). `eigen(i, j)` is
// the mode's horizontal eigenvalue (at most 0). V: Complex<R> (the periodic plane FFT's
// spectrum) or R (a walled box's real-to-real one). With `inv` (each line's reciprocal pivots,
// stored once by factor_modes) the sweeps divide nowhere (thomas_sweeps_factored: what counts
// where few lines run, a 2D box's or a small one's); without, c' goes to c. For a singular
// problem the (0, 0) mode carries b's volume mean and the solution's: its line takes b's out
// first (written to *b_mean, in plane sums of `sums` a value: 2 along each axis a cosine
// transform takes) and the solution's after, so neither b nor x needs a pass.
template <class R, class V, class Eigen>
void solve_modes(const Backend& be, const Grid& g, const GhostSelf<R>& self, bool singular, const ModeBand& band,
                 const Eigen& eigen, double round_trip, double sums, V* spec, R* c, const R* inv, double* b_mean) {
  const std::array<int, 3> n = g.global_n();
  const int nz = n[2];
  const ZView<R> z = g.z_view<R>(be);
  const ZView<double> zd = g.z_view<double>(be);
  const double height = g.length(2), plane = double(n[0]) * n[1] * sums;
  const R scale = R(-1.0 / round_trip);
  const std::ptrdiff_t stride = band.stride();
  const signed char lo = self.lo[2], hi = self.hi[2];
  // Blocks of 64: a few thousand lines (a 2D box's) fill 32 multiprocessors, not 8.
  for_each<0, 64>(be, Box{{0, 0, 0}, {band.lines, 1, 1}}, [=] BOUSS_HD(int mb, int, int) {
    int i, j;
    std::ptrdiff_t base;
    band.line(mb, i, j, base);
    const R lambda = R(-eigen(i, j));
    const bool pinned = singular && i == 0 && j == 0;
    const FourierRows<R> rows{z, nz, lambda, lo, hi, pinned};
    // The volume mean of the (0, 0) line's real parts (the plane means' weighted by thickness).
    const auto line_mean = [&] {
      double sum = 0;
      for (int k = 0; k < nz; ++k) sum += double(real_part(spec[base + k * stride])) * (zd.zf[k + 1] - zd.zf[k]);
      return sum / height;
    };
    const auto take_out = [&](double mean) {
      for (int k = 0; k < nz; ++k) real_part(spec[base + k * stride]) -= R(mean);
    };
    if (pinned) {
      const double mean = line_mean();  // of b's plane sums
      *b_mean = mean / plane;
      take_out(mean);
    }
    const auto store = [&](std::ptrdiff_t idx, V v) { spec[idx] = v; };
    if (inv) {
      const auto load = [&](int, std::ptrdiff_t idx) { return spec[idx]; };
      const auto rhs = [&](int k, V v) { return pinned && k == 0 ? V{} : v * scale; };
      thomas_sweeps_factored<R, V>(nz, rows, load, rhs, spec, inv, base, stride, store);
    } else {
      const auto rhs = [&](int k, std::ptrdiff_t idx) { return pinned && k == 0 ? V{} : spec[idx] * scale; };
      thomas_sweeps<R, V>(nz, rows, rhs, spec, c, base, stride, store);
    }
    if (pinned) take_out(line_mean());  // the solution's, fixed up to a constant by the pin
  }, "fourier mode solves");
}

// The reciprocal pivots of each mode's line (solve_modes' inv, the same modes), once: the
// rows never change.
template <class R, class Eigen>
void factor_modes(const Backend& be, const Grid& g, const GhostSelf<R>& self, bool singular, const ModeBand& band,
                  const Eigen& eigen, R* inv) {
  const int nz = g.global_n()[2];
  const ZView<R> z = g.z_view<R>(be);
  const std::ptrdiff_t stride = band.stride();
  const signed char lo = self.lo[2], hi = self.hi[2];
  for_each(be, Box{{0, 0, 0}, {band.lines, 1, 1}}, [=] BOUSS_HD(int mb, int, int) {
    int i, j;
    std::ptrdiff_t base;
    band.line(mb, i, j, base);
    const FourierRows<R> rows{z, nz, R(-eigen(i, j)), lo, hi, singular && i == 0 && j == 0};
    thomas_factor_line<R>(nz, rows, inv, base, stride);
  }, "fourier mode factors");
}

// The periodic plane FFT's modes: wavenumbers 0 .. nx/2 along x, 0 .. ny - 1 along y.
struct PeriodicEigen {
  int nx, ny;
  double rx2, ry2;
  BOUSS_HD double operator()(int i, int j) const {
    return periodic_laplacian_eigenvalue(i, nx, rx2) + periodic_laplacian_eigenvalue(j, ny, ry2);
  }
};
// The real-to-real spectrum's modes: each axis's index in its own transform's order.
struct AxisEigen {
  AxisTransform kx, ky;
  int nx, ny;
  double rx2, ry2;
  BOUSS_HD double operator()(int i, int j) const {
    return axis_laplacian_eigenvalue(kx, i, nx, rx2) + axis_laplacian_eigenvalue(ky, j, ny, ry2);
  }
};

// The eigenbases' modes: each axis's eigenvalues (on the backend), x's index i, y's j.
struct TableEigen {
  const double* lx;
  const double* ly;
  BOUSS_HD double operator()(int i, int j) const { return lx[i] + ly[j]; }
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
FourierSolver<R>::FourierSolver(const Backend& backend, const Grid& grid, const FieldBC& bc, bool eigenbases)
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
  const Grid whole = grid.whole();
  plane_area_ = whole.length(0) * whole.length(1);
  grid_.template z_view<R>(backend);
  grid_.template z_view<double>(backend);
  // A stretched x or y has no fast transform: its eigenbasis (and so the other axis's too).
  const bool eigen = eigenbases || grid.stretched_horizontally();
  std::array<AxisEigenbasis, 2> bases;
  if (eigen) bases = {axis_eigenbasis(grid.faces(0), kinds_[0]), axis_eigenbasis(grid.faces(1), kinds_[1])};
  const std::array<int, 3> n = grid.global_n();
  if (grid.decomposition && !backend.ranks().alone()) {
    // Cut over ranks: the same plane transforms on z slabs of whole planes, the mode solves on
    // this rank's band of modes (solver/direct/slab_transform.hpp).
    typename SlabTransform<R>::MakeR2R make_r2r;
    const std::array<AxisTransform, 2> kinds = kinds_;
    if (eigen)
      make_r2r = [backend, bases](const Layout& slab) -> std::unique_ptr<PlaneR2R<R>> {
        return std::make_unique<PlaneEigen<R>>(backend, slab, bases);
      };
    else if (walled())
      make_r2r = [backend, kinds](const Layout& slab) -> std::unique_ptr<PlaneR2R<R>> {
        return std::make_unique<PlaneCosine<R>>(backend, slab, kinds);
      };
    // A uniform grid cut along y alone: x and z transformed on the blocks, the y lines solved
    // across the ranks by their ends (solver/direct/y_split_solve.hpp); on other grids cut
    // along y alone the x transforms on the blocks, one all-to-all each way.
    const bool z_neumann = n[2] == 1 || (bc.face[4].kind == BoundaryKind::gradient && bc.face[5].kind == BoundaryKind::gradient);
    if (z_neumann && splits_y(grid, eigen)) {
      split_ = std::make_unique<YSplitSolve<R>>(backend, grid, kinds_[0], kinds_[1] == AxisTransform::walled);
    } else {
    const bool real = eigen || walled();
    if (PencilTransform<R>::takes(grid, real))
      transposed_ = std::make_unique<PencilTransform<R>>(
          backend, grid, PencilTransform<R>::default_pieces(grid, sizeof(R), real), kinds_, eigen ? &bases : nullptr);
    else
      transposed_ = std::make_unique<SlabTransform<R>>(backend, grid, make_r2r);
    const ModeBand band = transposed_->band();
    const std::size_t lines = std::size_t(band.lines) * n[2];
    band_ = static_cast<R*>(backend.allocate(std::max<std::size_t>(transposed_->band_values(), 1) * sizeof(R)));
    if (eigen) {
      std::vector<double> table(bases[0].eigenvalues);
      table.insert(table.end(), bases[1].eigenvalues.begin(), bases[1].eigenvalues.end());
      eigenvalues_ = static_cast<double*>(backend.allocate(table.size() * sizeof(double)));
      copy_bytes(eigenvalues_, backend, table.data(), Backend::cpu(), table.size() * sizeof(double));
    }
    if (eigen || walled()) {
      factor_ = static_cast<R*>(backend.allocate(std::max<std::size_t>(lines, 1) * sizeof(R)));
      if (eigen)
        factor_modes(backend, grid_, self_, bc.singular(), band, TableEigen{eigenvalues_, eigenvalues_ + n[0]}, factor_);
      else
        factor_modes(backend, grid_, self_, bc.singular(), band,
                     AxisEigen{kinds_[0], kinds_[1], n[0], n[1], 1 / (grid.h[0] * grid.h[0]), 1 / (grid.h[1] * grid.h[1])},
                     factor_);
    } else {
      band_c_ = static_cast<R*>(backend.allocate(std::max<std::size_t>(lines, 1) * sizeof(R)));
    }
    }
  } else if (eigen) {
    eigen_ = std::make_unique<PlaneEigen<R>>(backend, grid.layout, bases);
    factor_ = static_cast<R*>(backend.allocate(r2r_spectrum_size(grid.layout) * sizeof(R)));
    factor_modes(backend, grid_, self_, bc.singular(), ModeBand::flat(n[0], 0, n[0] * n[1], n[2]),
                 TableEigen{eigen_->eigenvalues(0), eigen_->eigenvalues(1)}, factor_);
  } else if (walled()) {
    cosine_ = std::make_unique<PlaneCosine<R>>(backend, grid.layout, kinds_);
    factor_ = static_cast<R*>(backend.allocate(r2r_spectrum_size(grid.layout) * sizeof(R)));
    factor_modes(backend, grid_, self_, bc.singular(), ModeBand::flat(n[0], 0, n[0] * n[1], n[2]),
                 AxisEigen{kinds_[0], kinds_[1], n[0], n[1], 1 / (grid.h[0] * grid.h[0]), 1 / (grid.h[1] * grid.h[1])},
                 factor_);
  } else {
    fft_ = make_plane_fft<R>(backend, grid.layout);
  }
  // The spectrum (2 (nx/2 + 1) ny nz values) fits in one padded array (at least (nx + 3)
  // (ny + 3) (nz + 3) values).
  if (!transposed_ && !split_ && 2 * spectrum_size(grid.layout) > std::size_t(grid.layout.size))
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
  if (eigenvalues_) backend_.deallocate(eigenvalues_);
  if (band_c_) backend_.deallocate(band_c_);
  if (factor_) backend_.deallocate(factor_);
}

template <class R>
double FourierSolver<R>::estimate_memory(const Grid& grid, std::size_t value_bytes, bool lent, bool real_spectrum,
                                         bool eigenbases) {
  double bytes = 2 * sizeof(double) + (lent ? 0.0 : LentArrays<R>::capacity * double(grid.layout.size) * value_bytes);
  if (grid.decomposition && grid.decomposition->ranks() > 1 && splits_y(grid, eigenbases))
    return bytes + YSplitSolve<R>::estimate_memory(grid, value_bytes);
  if (grid.decomposition && grid.decomposition->ranks() > 1) {
    // The pencils' messages (a periodic box cut along y alone) or the slab and its messages;
    // this rank's band with its c' (complex) or its lines' pivots (real), the eigenvalues' table.
    const std::array<int, 3> n = grid.global_n();
    const bool pencils = PencilTransform<R>::takes(grid, real_spectrum);
    const int columns = real_spectrum ? n[0] : n[0] / 2 + 1;
    const double modes = pencils ? double(PencilTransform<R>::band_columns(grid, real_spectrum)) * n[1]
                                 : double(SlabTransform<R>::band_modes(grid, columns));
    const double lines = std::max(1.0, modes * n[2]);
    bytes += (pencils ? PencilTransform<R>::estimate_memory(grid, value_bytes, real_spectrum)
                      : SlabTransform<R>::estimate_memory(grid, value_bytes, real_spectrum)) +
             (real_spectrum ? 2.0 : 3.0) * lines * value_bytes +
             (eigenbases ? double(n[0] + n[1]) * sizeof(double) : 0.0);
  }
  return bytes;
}

// A mean that the band holding the (0, 0) mode (rank 0's) wrote, on every rank.
template <class R>
void FourierSolver<R>::share_mean(double* at) const {
  if (!transposed_) return;
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
  // One rank's spectrum and c' in the first two arrays; under ranks they stage the pencils'
  // x lines, and the band and its c' are the solver's own.
  Complex<R>* const spectrum = reinterpret_cast<Complex<R>*>(work_arrays.fields[0]->data());
  R* const c = work_arrays.fields[1]->data();
  Field<R>& work = *work_arrays.fields[2];
  const bool singular = bc_.singular();
  const std::ptrdiff_t origin = grid_.layout.origin;
  const std::array<int, 3> n = grid_.global_n();
  const double rx2 = 1 / (grid_.h[0] * grid_.h[0]), ry2 = 1 / (grid_.h[1] * grid_.h[1]);
  // The walled box's transforms' round trip, and its (0, 0) mode's plane sums a value (2 along
  // each axis a cosine transform takes); the eigenbases' (0, 0) mode, the plane integral over
  // sqrt(Lx Ly) (solver/direct/plane_eigen.hpp).
  const double walled_round_trip = axis_transform_scale(kinds_[0], n[0]) * axis_transform_scale(kinds_[1], n[1]);
  const double walled_sums = (kinds_[0] == AxisTransform::walled ? 2 : 1) * (kinds_[1] == AxisTransform::walled ? 2 : 1);
  const double eigen_sums = std::sqrt(plane_area_) / (double(n[0]) * n[1]);
  const AxisEigen axis_eigen{kinds_[0], kinds_[1], n[0], n[1], rx2, ry2};
  const PeriodicEigen periodic_eigen{n[0], n[1], rx2, ry2};
  // The field f's solve into g (x, or the refinement's correction in place of its residual).
  const auto solve_field = [&](const Field<R>& f, Field<R>& g, double* mean) {
    if (split_) {  // the first two lent arrays stage the spectrum and the line transforms' work
      split_->solve(f, g, work_arrays.fields[0]->data(), c, singular ? mean : nullptr);
      return;
    }
    if (transposed_) {  // the plane transforms on slabs or pencils, the mode solves on this rank's band
      // the first two lent arrays stage the pencils' x lines (the slabs use none)
      R* const staging_a = work_arrays.fields[0]->data();
      R* const staging_b = c;
      transposed_->forward(f, band_, staging_a, staging_b);
      const ModeBand band = transposed_->band();
      if (eigenvalues_)
        solve_modes(backend_, grid_, self_, singular, band, TableEigen{eigenvalues_, eigenvalues_ + n[0]}, 1.0, eigen_sums,
                    band_, static_cast<R*>(nullptr), factor_, mean);
      else if (walled())
        solve_modes(backend_, grid_, self_, singular, band, axis_eigen, walled_round_trip, walled_sums, band_,
                    static_cast<R*>(nullptr), factor_, mean);
      else
        solve_modes(backend_, grid_, self_, singular, band, periodic_eigen, double(n[0]) * n[1], 1.0,
                    reinterpret_cast<Complex<R>*>(band_), band_c_, static_cast<const R*>(nullptr), mean);
      if (singular) share_mean(mean);
      transposed_->inverse(band_, g, staging_a, staging_b);
      return;
    }
    if (eigen_) {  // the second array stages the products; the first holds the real spectrum
      R* const real = work_arrays.fields[0]->data();
      eigen_->forward(f.data() + origin, c, real);
      solve_modes(backend_, grid_, self_, singular, ModeBand::flat(n[0], 0, n[0] * n[1], n[2]),
                  TableEigen{eigen_->eigenvalues(0), eigen_->eigenvalues(1)}, 1.0, eigen_sums, real,
                  static_cast<R*>(nullptr), factor_, mean);
      eigen_->inverse(real, c, g.data() + origin);
      return;
    }
    if (cosine_) {  // the second array stages the planes, then holds the real spectrum
      cosine_->to_half_spectrum(f.data() + origin, c, spectrum);
      cosine_->to_real_spectrum(spectrum, c);
      solve_modes(backend_, grid_, self_, singular, ModeBand::flat(n[0], 0, n[0] * n[1], n[2]), axis_eigen, walled_round_trip, walled_sums, c,
                  static_cast<R*>(nullptr), factor_, mean);
      cosine_->from_real_spectrum(c, spectrum);
      cosine_->from_half_spectrum(spectrum, c, g.data() + origin);
      return;
    }
    fft_->forward(f.data() + origin, spectrum);
    solve_modes(backend_, grid_, self_, singular, ModeBand::flat(n[0] / 2 + 1, 0, (n[0] / 2 + 1) * n[1], n[2]), periodic_eigen,
                double(n[0]) * n[1], 1.0, spectrum, c, static_cast<const R*>(nullptr), mean);
    fft_->inverse(spectrum, g.data() + origin);
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
  const bool real = eigen_ || eigenvalues_ || walled();
  // The plane transforms both ways over `planes` values (half: their half spectrum's, as R):
  // eigenbases: each product reads a field's worth and writes one, two a direction (the
  // matrices stay in cache); a walled box: the reorder each way (a field read and written),
  // the FFT each way (the field and the half spectrum), the orbit maps each way (the half
  // spectrum read, the real one written, and back); a periodic box: the FFT each way.
  const auto plane_transforms = [&](double planes, double half) {
    if (eigen_ || eigenvalues_) return 8 * planes;
    if (walled()) return 2 * planes + (planes + half) + 2 * (half + planes) + (half + planes) + 2 * planes;
    return (planes + half) + (half + planes);
  };
  // The mode solves over `values` of the spectrum: a real one's read it and the stored
  // pivots, write d', read both back and write the solution; a complex one's read it, write
  // c' (half a spectrum) and d', read both back and write the solution.
  const auto mode_solves = [&](double values) { return real ? 6 * values : 5 * values; };
  double transforms;
  if (split_) {  // the transforms on the blocks, the y lines across the ranks
    transforms = split_->values_per_solve();
  } else if (transposed_) {  // the transposes and transforms both ways, the band's mode solves
    transforms = transposed_->values_both_ways(plane_transforms) + mode_solves(double(transposed_->band_values()));
  } else {
    const double half = 2.0 * double(spectrum_size(grid_.layout));
    transforms = plane_transforms(cells, half) + mode_solves(real ? cells : half);
  }
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
