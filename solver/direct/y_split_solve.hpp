// The direct solve on a grid cut along y alone whose z is uniform, without moving the field
// between ranks: each block's lines along x and z are whole, so it transforms them where they
// lie (solver/direct/line_r2r.hpp: x periodic by the halfcomplex DFT or walled by the cosine
// transform, z's walls by the cosine transform), and each (x, z) mode's y line, cut over the
// ranks, is a tridiagonal system (the second-order difference along y plus the mode's
// eigenvalue, periodic or between walls) solved by partition: each block finds the two end
// values of its own rows' solution (one elimination from the top, one from the bottom), the
// blocks' ends are gathered on every rank (one all-gather, a few MB where the pencils'
// all-to-alls move the field), each mode's system of the ends is solved
// (solver/direct/y_split_kernels.hpp) with the end values of every block's spikes (its
// solutions for a unit value beyond its ends, made once), and each block solves its rows
// again with its neighbours' end values on the right-hand side (pivots stored once). z's
// orbit map runs inside those two y-line kernels, which read and write the z lines' half
// spectrum: the spectrum is not written between them. The (0, 0) mode of a singular problem
// is gathered whole and solved on every rank as one rank solves it: b's mean taken out, the
// line pinned, the solution's mean taken out. The same discrete equations as every direct
// solve, to round-off (within 1e-12 of one rank's).
#pragma once

#include <array>
#include <memory>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/line_r2r.hpp"
#include "solver/direct/y_split_kernels.hpp"

namespace bouss {

template <class R>
class YSplitSolve {
 public:
  // The most ranks it joins (the ends' system is 2 x ranks unknowns, one thread a mode).
  static constexpr int max_ranks = 8;
  // Whether it takes `part`: a block of a grid cut along y alone over 2 .. max_ranks ranks,
  // every block at least 2 rows, x and z uniform (their fast transforms), z walled or of one
  // level.
  static bool takes(const Grid& part);
  // x_kind: x's transform; y_walled: walls at y_lo and y_hi (else periodic).
  YSplitSolve(const Backend& backend, const Grid& part, AxisTransform x_kind, bool y_walled);
  ~YSplitSolve();
  YSplitSolve(const YSplitSolve&) = delete;
  YSplitSolve& operator=(const YSplitSolve&) = delete;

  // f's solution into g's interior, by way of two staging arrays of the layout's size (lent:
  // they are overwritten). A singular problem's b mean (b's volume mean) is written to
  // *b_mean on the backend and taken out; null: not singular.
  void solve(const Field<R>& f, Field<R>& g, R* staging_a, R* staging_b, double* b_mean);

  // Bytes it allocates on the backend: its pivots (a value a cell), the ranks' spike ends,
  // the pinned line, and the all-gather's send and receive;
  // the line transforms' work areas are line_work_bytes.
  static double estimate_memory(const Grid& part, std::size_t value_bytes);
  // Values of R a solve reads and writes (the bench's traffic model): the block into the
  // spectrum's layout and back (2 a way), x's FFT and orbit map each way (4), z's FFT each way
  // (2), the ends' sweeps (the z half spectrum read twice) and the join's (the spectrum, the
  // pivots and d' each way: 6); without z lines the ends' sweeps read the spectrum itself.
  double values_per_solve() const;
  static double line_work_bytes(const Backend& backend, const Grid& part);

 private:
  Backend backend_;
  int ranks_, rank_;
  int nx_, ny_, nz_, m_, max_rows_, y0_;
  double a_ = 0;  // 1 / hy^2
  AxisTransform x_kind_;
  bool y_walled_, z_lines_;  // z_lines_: z transformed (more than one level)
  std::unique_ptr<LineR2R<R>> x_, z_;
  double rx2_ = 0, rz2_ = 0;  // 1 / hx^2, 1 / hz^2
  R* inv_ = nullptr;       // each mode's rows' reciprocal pivots (m values a mode, as the spectrum)
  R* ends_ = nullptr;      // every rank's spike ends: (rank, 4, mode)
  R* line_ = nullptr;      // a singular problem's (0, 0) line, whole, and its c'
  R* gather_send_ = nullptr;  // this rank's part of an all-gather
  R* gather_all_ = nullptr;   // every rank's (a slot each)
  int modes() const { return nx_ * nz_; }
  std::size_t slot() const { return 2 * std::size_t(modes()) + std::size_t(max_rows_); }  // a rank's all-gather
  YSplitRows<R> rows() const;  // this block's rows of a mode (its eigenvalue left at 0)
  static R2RLines x_lines(const Grid& part);
  static R2RLines z_lines(const Grid& part);
};

}  // namespace bouss
