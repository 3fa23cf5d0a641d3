// Pointwise pieces of the direct solve whose y lines are cut over the ranks
// (solver/direct/y_split_solve.hpp): one (x, z) mode's y rows on a block, and the small
// system that joins the blocks' ends.
#pragma once

#include "grid/config.hpp"
#include "solver/line/tridiagonal_kernels.hpp"

namespace bouss {

// The rows of one (x, z) mode's y line on a block of m rows: the difference
// (u_{j+1} - 2 u_j + u_{j-1}) a (a = 1/hy^2) plus the mode's eigenvalue lambda (at most 0) on
// the diagonal. A wall's row (the pressure's homogeneous Neumann wall: the ghost mirrors the
// cell) folds its missing neighbour into the diagonal; a row at the block's end that couples
// to another block's row leaves that coupling out: the block's own system, whose solutions
// the ends' system joins (y_split_ends).
template <class S>
struct YSplitRows {
  S a, lambda;
  int m;
  bool wall_lo, wall_hi;  // row 0 (row m - 1) is the whole grid's first (last) beside a wall
  BOUSS_HD TriRow<S> operator()(int r) const {
    TriRow<S> row{a, lambda - 2 * a, a};
    if (r == 0) {
      row.lower = S(0);
      if (wall_lo) row.diag += a;
    }
    if (r == m - 1) {
      row.upper = S(0);
      if (wall_hi) row.diag += a;
    }
    return row;
  }
};

// One row of an elimination sweep down a block's own rows, its pivot made on the way (the
// Thomas forward sweep's arithmetic, thomas_pivot): cp and dp carry c' and d' of the row
// before (0 before the first), and after the last row dp is the last value of the block's
// own solution. Swept from the bottom with each row reversed (y_split_reversed), it ends at
// the first value: a block's two end values from one read of its right-hand side each way,
// nothing stored.
template <class S>
BOUSS_HD inline void y_split_eliminate(const TriRow<S>& row, S rhs, S& cp, S& dp) {
  const S inv = thomas_pivot(row, cp);
  dp = (rhs - row.lower * dp) * inv;
}

template <class S>
BOUSS_HD inline TriRow<S> y_split_reversed(const TriRow<S>& row) {
  return {row.upper, row.diag, row.lower};
}

// The blocks' ends joined, for one mode: on block q (of P, in y order) the solution is
// x = r_q + L_{q-1} sL_q + F_{q+1} sR_q, with r_q its own system's solution, sL_q and sR_q the
// solutions for a unit value beyond its first and last rows (its spikes), L the blocks' last
// values and F their first (the neighbours cyclic along a periodic y; none beyond a wall).
// At the ends that gives 2P equations in the 2P unknowns (F_q, L_q):
//   F_q - sL_q[0] L_{q-1} - sR_q[0] F_{q+1} = r_q[0],
//   L_q - sL_q[m-1] L_{q-1} - sR_q[m-1] F_{q+1} = r_q[m-1],
// solved by Gaussian elimination with partial pivoting (N = 2P unknowns). end(q, c) gives
// block q's c-th end value: 0 r_q[0], 1 r_q[m-1], 2 sL_q[0], 3 sL_q[m-1], 4 sR_q[0], 5 sR_q[m-1].
// On return left = L_{p-1} and right = F_{p+1} of block p (0 where a wall is).
template <class S, int N, class End>
BOUSS_HD inline void y_split_ends(int p, bool periodic, const End& end, S& left, S& right) {
  constexpr int P = N / 2;
  S A[N][N + 1];
  for (int r = 0; r < N; ++r)
    for (int c = 0; c <= N; ++c) A[r][c] = S(0);
  for (int q = 0; q < P; ++q) {
    const int ql = q > 0 ? q - 1 : (periodic ? P - 1 : -1), qr = q < P - 1 ? q + 1 : (periodic ? 0 : -1);
    for (int e = 0; e < 2; ++e) {
      S* row = A[2 * q + e];
      row[2 * q + e] += S(1);
      if (ql >= 0) row[2 * ql + 1] -= end(q, 2 + e);
      if (qr >= 0) row[2 * qr] -= end(q, 4 + e);
      row[N] = end(q, e);
    }
  }
  for (int c = 0; c < N; ++c) {
    int pivot = c;
    for (int r = c + 1; r < N; ++r)
      if ((A[r][c] < 0 ? -A[r][c] : A[r][c]) > (A[pivot][c] < 0 ? -A[pivot][c] : A[pivot][c])) pivot = r;
    if (pivot != c)
      for (int k = c; k <= N; ++k) {
        const S t = A[c][k];
        A[c][k] = A[pivot][k];
        A[pivot][k] = t;
      }
    const S inv = S(1) / A[c][c];
    for (int r = c + 1; r < N; ++r) {
      const S f = A[r][c] * inv;
      if (f == S(0)) continue;
      for (int k = c; k <= N; ++k) A[r][k] -= f * A[c][k];
    }
  }
  S u[N];
  for (int r = N - 1; r >= 0; --r) {
    S v = A[r][N];
    for (int k = r + 1; k < N; ++k) v -= A[r][k] * u[k];
    u[r] = v / A[r][r];
  }
  const int pl = p > 0 ? p - 1 : (periodic ? P - 1 : -1), pr = p < P - 1 ? p + 1 : (periodic ? 0 : -1);
  left = pl >= 0 ? u[2 * pl + 1] : S(0);
  right = pr >= 0 ? u[2 * pr] : S(0);
}

}  // namespace bouss
