// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/fourier_solver.hpp"

#include <stdexcept>

#include "grid/field_ops.hpp"
#include "grid/for_each.hpp"
#include "solver/fourier_kernels.hpp"
#include "solver/line_multigrid.hpp"
#include "solver/volume_mean.hpp"

namespace bouss {
namespace {

// Each horizontal mode's vertical line solved in place in the spectrum (scaled by -1/(nx ny):
// the rows are -L's, and the transforms are unnormalized).
template <class R>
void solve_modes(const Backend& be, const Grid& g, const GhostSelf<R>& self, bool singular, Complex<R>* spec, R* c) {
  const int nx = g.layout.n[0], ny = g.layout.n[1], nz = g.layout.n[2], mx = nx / 2 + 1;
  const ZView<R> z = g.z_view<R>(be);
  const double rx2 = 1 / (g.h[0] * g.h[0]), ry2 = 1 / (g.h[1] * g.h[1]);
  const R scale = R(-1.0 / (double(nx) * ny));
  const std::ptrdiff_t stride = std::ptrdiff_t(mx) * ny;
  const signed char lo = self.lo[2], hi = self.hi[2];
  for_each(be, Box{{0, 0, 0}, {mx, ny, 1}}, [=] BOUSS_HD(int i, int j, int) {
    const R lambda = R(-(periodic_laplacian_eigenvalue(i, nx, rx2) + periodic_laplacian_eigenvalue(j, ny, ry2)));
    const bool pinned = singular && i == 0 && j == 0;
    const FourierRows<R> rows{z, nz, lambda, lo, hi, pinned};
    const std::ptrdiff_t base = i + std::ptrdiff_t(mx) * j;
    const auto rhs = [&](int k, std::ptrdiff_t idx) { return pinned && k == 0 ? Complex<R>{R(0), R(0)} : spec[idx] * scale; };
    thomas_sweeps<R, Complex<R>>(nz, rows, rhs, spec, c, base, stride,
                                 [&](std::ptrdiff_t idx, Complex<R> v) { spec[idx] = v; });
  }, "fourier mode solves");
}

}  // namespace

template <class R>
std::optional<std::string> FourierSolver<R>::refuses(const FieldBC& bc) {
  if (!bc.periodic(0) || !bc.periodic(1))
    return std::string("expected x and y periodic for \"fft\" (it transforms the horizontal planes), got walls in ") +
           (!bc.periodic(0) ? "x" : "y");
  if (bc.periodic(2))
    return std::string("expected walls at z_lo and z_hi for \"fft\" (its vertical lines are tridiagonal systems "
                       "between walls), got a periodic z");
  for (int f = 4; f < 6; ++f)
    if (bc.face[f].value != 0 || bc.face[f].slope_z != 0)
      return std::string("expected walls without data in z for \"fft\" (the pressure's), got a wall value");
  return std::nullopt;
}

template <class R>
FourierSolver<R>::FourierSolver(const Backend& backend, const Grid& grid, const FieldBC& bc)
    : backend_(backend), grid_(grid), bc_(bc) {
  if (const auto why = refuses(bc)) throw std::invalid_argument("fft pressure solver: " + *why);
  self_ = ghost_self<R>(bc, grid);
  grid_.template z_view<R>(backend);
  grid_.template z_view<double>(backend);
  fft_ = make_plane_fft<R>(backend, grid.layout);
  const std::size_t modes = spectrum_size(grid.layout);
  spectrum_ = static_cast<Complex<R>*>(backend.allocate(modes * sizeof(Complex<R>)));
  c_ = static_cast<R*>(backend.allocate(modes * sizeof(R)));
}

template <class R>
FourierSolver<R>::~FourierSolver() {
  backend_.deallocate(spectrum_);
  backend_.deallocate(c_);
}

template <class R>
double FourierSolver<R>::estimate_memory(const Grid& grid, std::size_t value_bytes) {
  return double(spectrum_size(grid.layout)) * value_bytes * (2 + 1);
}

template <class R>
double FourierSolver<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  return line_residual_norm(grid_, backend_, 0.0, x, b);
}

template <class R>
SolveStats FourierSolver<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const LineSolveStart start = start_line_solve(grid_, bc_, 0.0, x, b);
  if (start.constant) return SolveMonitor::constant_solution();
  SolveStats stats;
  SolveMonitor monitor(stats, start.bnorm, tolerance);
  monitor.record(start.bnorm);  // the residual of x = 0
  const std::ptrdiff_t origin = grid_.layout.origin;
  fft_->forward(b.data() + origin, spectrum_);
  solve_modes(backend_, grid_, self_, start.singular, spectrum_, c_);
  fft_->inverse(spectrum_, x.data() + origin);
  if (start.singular) remove_volume_mean(grid_, x);
  fill_ghosts(x, bc_, grid_);
  stats.cycles = 1;
  monitor.record(residual_norm(x, b));
  monitor.finish();
  return stats;
}

template <class R>
double FourierSolver<R>::bytes_per_solve(const SolveStats&) const {
  const double cells = double(grid_.layout.cells()), spectrum = 2.0 * double(spectrum_size(grid_.layout));
  const double mode_solves = spectrum + spectrum / 2 + spectrum + spectrum / 2 + spectrum + spectrum;  // read, c', d', c' d' back, write
  return (3 * cells + (cells + spectrum) + mode_solves + (spectrum + cells) + 3 * cells + 2 * cells) * sizeof(R);
}

template class FourierSolver<double>;
template class FourierSolver<float>;

}  // namespace bouss
