// The direct pressure solver for grids with walls in z (any z spacing) and, along x and y
// (uniform, as every bouss grid is), periodic or walled sides: each z plane of b transformed,
// a periodic axis by the FFT, a walled one by the cosine transform (solver/direct/plane_fft.hpp,
// plane_cosine.hpp: cuFFT or FFTW), one tridiagonal solve per horizontal mode along z (the
// second-order Laplacian's eigenvalues on the diagonal, the walls folded as every line solver
// folds them; the (0, 0) mode pinned where the problem is singular), and the inverse
// transforms into x. It solves the same discrete equations as the multigrids (the
// cell-centred 7-point Laplacian, the stretched z's finite volumes) exactly, to round-off, in
// one pass: its one "iteration". On a grid cut over ranks the mode solves run on bands of
// modes, any rank count (solver/direct/transposed_planes.hpp): a grid cut along y alone
// transforms x on the blocks and y on bands of x modes (pencil_transform.hpp; a walled or
// stretched box through real-to-real line transforms, line_r2r.hpp), every other process
// grid its planes on z slabs (slab_transform.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "grid/boundary.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/ghost_self.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/plane_cosine.hpp"
#include "solver/direct/plane_eigen.hpp"
#include "solver/direct/plane_fft.hpp"
#include "solver/pressure_solver.hpp"
#include "solver/direct/pencil_transform.hpp"
#include "solver/direct/slab_transform.hpp"
#include "solver/direct/transposed_planes.hpp"
#include "solver/direct/y_split_solve.hpp"

namespace bouss {

template <class R>
class FourierSolver final : public PressureSolver<R> {
 public:
  // eigenbases: transform x and y through their dense eigenbases as matrix products
  // (solver/direct/plane_eigen.hpp) instead of the FFT and cosine transforms: what a
  // stretched horizontal axis needs; on uniform axes the tests compare the two.
  FourierSolver(const Backend& backend, const Grid& grid, const FieldBC& bc, bool eigenbases = false);
  ~FourierSolver() override;
  FourierSolver(const FourierSolver&) = delete;
  FourierSolver& operator=(const FourierSolver&) = delete;

  // solver/pressure_solver.hpp's contract, except that b is left as given: its volume mean
  // is taken out in the spectrum and from the residual the solve measures. The warm start is
  // not used (the solve is direct); the residuals recorded are b's (x = 0) and the solution's
  // after each pass: the solve, then up to two passes of iterative refinement while the
  // residual is above the tolerance (float's round-off; cycles counts the passes).
  SolveStats solve(Field<R>& x, Field<R>& b, double tolerance) override;
  // With lent arrays (three: the spectrum, c' and the refinement's field live in them) it
  // allocates none of its own; without, its own on the first solve.
  SolveStats solve_with(Field<R>& x, Field<R>& b, double tolerance, const LentArrays<R>& lent) override;
  // The solve and passes - 1 refinements (at most two) without measuring a residual: the
  // same kernels as solve_with's that many passes, so the same x bit for bit.
  bool solves_in_fixed_passes() const override { return true; }
  SolveStats solve_passes(Field<R>& x, Field<R>& b, int passes, const LentArrays<R>& lent) override;
  double residual_norm(const Field<R>& x, const Field<R>& b) const override;
  // The eigenbases' matrix products' floating-point operations in one direction (forward or
  // inverse) of one pass; 0 without eigenbases.
  double transform_flops() const { return eigen_ ? eigen_->flops() : 0.0; }
  // The forward transforms (b read, the spectrum written), the mode solves (the spectrum
  // read, c' and d' written and read, the spectrum written), the inverse transforms
  // (spectrum read, x written) and the residual check with max|b - mean| (x and b read, not
  // in a solve of fixed passes), and each refinement's passes; a spectrum value counted as two.
  // A walled box's also the reorders each way and the orbit map back (bytes_per_solve's body).
  double bytes_per_solve(const SolveStats& s) const override;
  // Bytes it allocates on the backend: its own spectrum, c' and refinement field unless the
  // arrays are lent (one rank's walled box's stored pivots are fourier_type's to count); the
  // transforms' work area is plane_fft_work_bytes. On a block of a grid cut over ranks, also
  // its band (real where a horizontal axis is walled or goes through its eigenbasis) with its
  // c' or pivots, the eigenbases' eigenvalues, the transposes' messages, and on slabs the slab
  // and its spectrum (the plane and line transforms' own arrays and work areas are
  // fourier_type's to count).
  static double estimate_memory(const Grid& grid, std::size_t value_bytes, bool lent, bool real_spectrum = false,
                                bool eigenbases = false);
  // Whether the solve on `block` (cut over ranks) runs with its y lines cut over the ranks
  // (solver/direct/y_split_solve.hpp): a uniform grid cut along y alone, not through the
  // eigenbases.
  static bool splits_y(const Grid& block, bool eigenbases = false) {
    return !eigenbases && YSplitSolve<R>::takes(block);
  }
  // Why it cannot solve on this grid (walls in z unless z has one cell), as
  // "expected ..., got ...", or nothing: the registry entry's rule (solver/direct/fourier_type.cpp)
  // and the constructor's, which also refuses walls with data.
  static std::optional<std::string> refuses(const PressureGrid& g);

 private:
  Backend backend_;
  Grid grid_;
  FieldBC bc_;
  GhostSelf<R> self_;
  std::unique_ptr<PlaneFft<R>> fft_;  // one rank's plane transforms (x and y periodic)
  // A walled horizontal axis: each axis's transform, and the plane transforms that reorder
  // the planes along the walled ones and map their half spectra to the real cosine modes.
  std::array<AxisTransform, 2> kinds_{AxisTransform::periodic, AxisTransform::periodic};
  std::unique_ptr<PlaneCosine<R>> cosine_;
  // The horizontal axes through their eigenbases (the whole grid, on one rank).
  std::unique_ptr<PlaneEigen<R>> eigen_;
  R* factor_ = nullptr;  // each walled mode line's reciprocal pivots (nx ny nz values, or the band's: the rows never change)
  bool walled() const { return kinds_[0] == AxisTransform::walled || kinds_[1] == AxisTransform::walled; }
  // Under several ranks: the transposed transforms, and the band of modes this rank solves
  // (solver/direct/transposed_planes.hpp: complex values of a periodic box, real ones of a
  // walled or stretched one), with its c' (periodic) or its lines' pivots (in factor_), its
  // own memory; the eigenbases' eigenvalues (x's, then y's) where the axes go through them.
  std::unique_ptr<TransposedPlanes<R>> transposed_;
  // Or, on a uniform grid cut along y alone, the solve whose y lines are cut over the ranks.
  std::unique_ptr<YSplitSolve<R>> split_;
  R* band_ = nullptr;
  R* band_c_ = nullptr;
  double* eigenvalues_ = nullptr;
  double plane_area_ = 0;  // the whole grid's Lx Ly (the eigenbases' (0, 0) mode's scale)
  void share_mean(double* at) const;
  double* b_mean_ = nullptr;  // b's volume mean, on the backend (a singular problem's)
  double* work_mean_ = nullptr;  // the refinement residual's (next to b_mean_)
  // Its own arrays for solves without lent ones (allocated at the first such solve): the
  // spectrum, c' (the Thomas sweeps'), the refinement's residual and then its correction.
  std::array<Field<R>, LentArrays<R>::capacity> own_;
  static constexpr int max_passes = 3;  // the solve and at most two refinements
  // The lent arrays when complete, else its own (allocated at the first such solve).
  LentArrays<R> arrays(const LentArrays<R>& lent);
  void pass(int index, Field<R>& x, const Field<R>& b, const LentArrays<R>& work_arrays);
};

}  // namespace bouss
