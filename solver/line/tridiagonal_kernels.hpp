// Pointwise tridiagonal solves along one line of a padded array (paper 003), for both
// backends and both precisions. A system of n rows
//   lower(k) x[k-1] + diag(k) x[k] + upper(k) x[k+1] = r[k],   k = 0 .. n-1
// (lower(0) and upper(n-1) unused) sits at offsets base + k * stride, so one thread solves
// one vertical column of bouss's x-fastest layout with stride = sz, and neighbouring threads
// (neighbouring i) touch neighbouring addresses: the sweeps are coalesced.
// The coefficients come from a functor rows(k) -> TriRow<S>, recomputed from the grid where
// the operator is known (matrix-free), not loaded.
#pragma once

#include <cstddef>

#include "grid/config.hpp"

// Unroll a loop by 8 whatever its trip count: the Thomas sweeps are a recurrence whose loads
// do not depend on it, and unrolled, the loads of the next rows overlap.
#if defined(__CUDACC__)
#define BOUSS_UNROLL_8 _Pragma("unroll 8")
#elif defined(__GNUC__)
#define BOUSS_UNROLL_8 _Pragma("GCC unroll 8")
#else
#define BOUSS_UNROLL_8
#endif

namespace bouss {

template <class S>
struct TriRow {
  S lower, diag, upper;
};

// One row of the Thomas elimination's factors: returns the reciprocal pivot
// 1 / (b_k - a_k c'_{k-1}), with c'_{k-1} in cp on entry (0 before row 0) and c'_k on return.
template <class S>
BOUSS_HD inline S thomas_pivot(const TriRow<S>& row, S& cp) {
  const S inv = S(1) / (row.diag - row.lower * cp);
  cp = row.upper * inv;
  return inv;
}

// The Thomas algorithm (Gaussian elimination without pivoting: the systems must be
// diagonally dominant or symmetric positive definite). The forward sweep writes the
// eliminated right-hand side into d and the eliminated upper diagonal into c; the backward
// sweep hands each solution value to out(idx, value), k from n-1 down to 0, so a caller can
// store it, or relax towards it from the old value still in place (d and c are separate
// arrays). Bytes moved per row: r read, c and d written, then c and d read, and out's.
// thomas_sweeps takes the right-hand side as a functor rhs(k, idx), called once per row in
// order k = 0 .. n-1 (a caller may compute it there, and update what it reads at row k),
// up to thomas_ahead rows before that row's elimination; its values of type V (S, or a
// complex type for a complex right-hand side with real rows: V * S, S * V and V - V);
// thomas_line reads it from an array.
//
// Each sweep is a chain of n dependent steps, one thread per line: waiting for each row's
// load in turn leaves it latency-bound (the Fourier solve's 33024 lines of 128 rows at 256^2
// x 128 ran at 1.2 TB/s on the H200). So each sweep keeps the next thomas_ahead rows' loads in
// flight (the right-hand side forward; d' and c' backward), in registers shifted along.
// 8 measured against 4 on an H100 (two rounds, one call): the Fourier solve 0.620 against
// 0.629 ms, the developed fft step 1.336 against 1.341, the line multigrid's step 17.76
// against 17.53 (slower): no gain worth the registers; 4 kept.
constexpr int thomas_ahead = 4;

// The backward sweep: from the last row's solution `last` (its d'), rows n-2 .. 0 from d' and
// c', with those of the next thomas_ahead rows down in flight: c_load(k, idx) loads what row
// k's c' is made of, c_value(k, loaded) makes it when the row is used (made at the load, it
// would wait for the load). Each value handed to out.
template <class S, class V = S, int Ahead = thomas_ahead, class VD, class CLoad, class CValue, class Out>
BOUSS_HD inline void thomas_backward(int n, VD d, const CLoad& c_load, const CValue& c_value, std::ptrdiff_t base,
                                     std::ptrdiff_t stride, V last, const Out& out) {
  V d_ahead[Ahead];
  S c_ahead[Ahead];
  BOUSS_UNROLL
  for (int q = 0; q < Ahead; ++q) {
    const int k = n - 2 - q;
    d_ahead[q] = k >= 0 ? V(d[base + k * stride]) : V{};
    c_ahead[q] = k >= 0 ? S(c_load(k, base + k * stride)) : S(0);
  }
  V next = last;
  out(base + (n - 1) * stride, next);
  BOUSS_UNROLL_8
  for (int k = n - 2; k >= 0; --k) {
    next = d_ahead[0] - c_value(k, c_ahead[0]) * next;
    BOUSS_UNROLL
    for (int q = 0; q + 1 < Ahead; ++q) {
      d_ahead[q] = d_ahead[q + 1];
      c_ahead[q] = c_ahead[q + 1];
    }
    const int far = k - Ahead;
    d_ahead[Ahead - 1] = far >= 0 ? V(d[base + far * stride]) : V{};
    c_ahead[Ahead - 1] = far >= 0 ? S(c_load(far, base + far * stride)) : S(0);
    out(base + k * stride, next);
  }
}

template <class S, class V = S, class Rows, class Rhs, class VD, class VC, class Out>
BOUSS_HD inline void thomas_sweeps(int n, const Rows& rows, const Rhs& rhs, VD d, VC c, std::ptrdiff_t base,
                                   std::ptrdiff_t stride, const Out& out) {
  V ahead[thomas_ahead];  // the right-hand sides of rows k .. k + thomas_ahead - 1
  BOUSS_UNROLL
  for (int q = 0; q < thomas_ahead; ++q) ahead[q] = q < n ? V(rhs(q, base + q * stride)) : V{};
  const auto shift_in = [&](int k) {  // row k's value goes; row k + thomas_ahead's load starts
    BOUSS_UNROLL
    for (int q = 0; q + 1 < thomas_ahead; ++q) ahead[q] = ahead[q + 1];
    const int next = k + thomas_ahead;
    ahead[thomas_ahead - 1] = next < n ? V(rhs(next, base + next * stride)) : V{};
  };
  TriRow<S> row = rows(0);
  S cp = S(0);
  S inv = thomas_pivot(row, cp);
  V dp = ahead[0] * inv;
  shift_in(0);
  c[base] = cp;
  d[base] = dp;
  BOUSS_UNROLL_8
  for (int k = 1; k < n; ++k) {
    const std::ptrdiff_t idx = base + k * stride;
    row = rows(k);
    inv = thomas_pivot(row, cp);
    dp = (ahead[0] - row.lower * dp) * inv;
    shift_in(k);
    c[idx] = cp;
    d[idx] = dp;
  }
  thomas_backward<S, V>(
      n, d, [&](int, std::ptrdiff_t idx) { return S(c[idx]); }, [](int, S cp) { return cp; }, base, stride, dp, out);
}

// Lines whose rows stay the same solve after solve (a direct solve's mode lines): their
// reciprocal pivots 1 / (b_k - a_k c'_{k-1}) stored once (thomas_factor_line), each solve
// (thomas_sweeps_factored) divides nowhere: its forward chain is a multiply-add and a multiply
// a row, c'_k = c_k / pivot from the row, where thomas_sweeps' chain also divides: what counts
// where a few lines run (a 2D box's, a small one's), latency- and fp64-bound. The same rows,
// the same arithmetic: the same values as thomas_sweeps, bit for bit. inv is read only; d gets
// d' and then the solution as out writes it.
template <class S, class Rows, class VI>
BOUSS_HD inline void thomas_factor_line(int n, const Rows& rows, VI inv, std::ptrdiff_t base, std::ptrdiff_t stride) {
  S cp = S(0);
  for (int k = 0; k < n; ++k) inv[base + k * stride] = thomas_pivot(rows(k), cp);
}

// The right-hand side comes in two parts: load(k, idx), the loads of row k (issued Ahead rows
// early, so they are in flight while earlier rows eliminate), and value(k, loaded), the
// arithmetic that makes row k's right-hand side of them, done when the row is eliminated
// (done at the load, it would wait for it). It keeps thomas_factored_ahead rows in flight
// each way where thomas_sweeps keeps thomas_ahead: its few lines (2048 of 128 rows in the 2D
// lock exchange) leave a row's loads the time of a few rows' arithmetic to arrive, not that
// of other warps' work.
constexpr int thomas_factored_ahead = 8;

template <class S, class V = S, int Ahead = thomas_factored_ahead, class Rows, class Load, class Value, class VD,
          class VI, class Out>
BOUSS_HD inline void thomas_sweeps_factored(int n, const Rows& rows, const Load& load, const Value& value, VD d, VI inv,
                                            std::ptrdiff_t base, std::ptrdiff_t stride, const Out& out) {
  using Loaded = decltype(load(0, base));
  // Rows k .. k + Ahead - 1: their loads and reciprocal pivots.
  Loaded ahead[Ahead]{};
  S inv_ahead[Ahead];
  BOUSS_UNROLL
  for (int q = 0; q < Ahead; ++q) {
    ahead[q] = q < n ? load(q, base + q * stride) : Loaded{};
    inv_ahead[q] = q < n ? S(inv[base + q * stride]) : S(0);
  }
  V dp{};
  BOUSS_UNROLL_8
  for (int k = 0; k < n; ++k) {
    const std::ptrdiff_t idx = base + k * stride;
    dp = (V(value(k, ahead[0])) - rows(k).lower * dp) * inv_ahead[0];
    BOUSS_UNROLL
    for (int q = 0; q + 1 < Ahead; ++q) {
      ahead[q] = ahead[q + 1];
      inv_ahead[q] = inv_ahead[q + 1];
    }
    const int next = k + Ahead;
    ahead[Ahead - 1] = next < n ? load(next, base + next * stride) : Loaded{};
    inv_ahead[Ahead - 1] = next < n ? S(inv[base + next * stride]) : S(0);
    d[idx] = dp;
  }
  thomas_backward<S, V, Ahead>(
      n, d, [&](int, std::ptrdiff_t idx) { return S(inv[idx]); }, [&](int k, S pivot) { return rows(k).upper * pivot; },
      base, stride, dp, out);
}

// The right-hand side read from an array at the row's offset.
template <class VR>
struct RhsArray {
  const VR& r;
  BOUSS_HD auto operator()(int, std::ptrdiff_t idx) const { return r[idx]; }
};

template <class S, class Rows, class VR, class VD, class VC, class Out>
BOUSS_HD inline void thomas_line(int n, const Rows& rows, const VR& r, VD d, VC c, std::ptrdiff_t base,
                                 std::ptrdiff_t stride, const Out& out) {
  thomas_sweeps<S>(n, rows, RhsArray<VR>{r}, d, c, base, stride, out);
}

// The same with the solution written over d (x may alias r): the plain batched solve.
template <class S, class Rows, class VR, class VX, class VC>
BOUSS_HD inline void thomas_line(int n, const Rows& rows, const VR& r, VX x, VC c, std::ptrdiff_t base,
                                 std::ptrdiff_t stride) {
  thomas_line<S>(n, rows, r, x, c, base, stride, [&](std::ptrdiff_t idx, S v) { x[idx] = v; });
}

// Column-independent coefficients (the same rows in every column, as where the operator
// depends on z alone): the Thomas factors c'_k and 1/(b_k - a_k c'_{k-1}) are computed once
// for all columns (thomas_factors), and each column's solve only carries d. Then the forward
// sweep writes d' into x and the backward sweep overwrites it: per row r is read once and x
// written twice and read once.
template <class S>
struct ThomasFactors {
  const S* lower;    // a_k
  const S* upper_e;  // c'_k
  const S* inv;      // 1 / (b_k - a_k c'_{k-1})
};
template <class S, class VR, class VX>
BOUSS_HD inline void thomas_factored(int n, const ThomasFactors<S>& f, const VR& r, VX x, std::ptrdiff_t base,
                                     std::ptrdiff_t stride) {
  S d = S(r[base]) * f.inv[0];
  x[base] = d;
  BOUSS_UNROLL_8
  for (int k = 1; k < n; ++k) {
    const std::ptrdiff_t idx = base + k * stride;
    d = (S(r[idx]) - f.lower[k] * d) * f.inv[k];
    x[idx] = d;
  }
  S next = d;
  BOUSS_UNROLL_8
  for (int k = n - 2; k >= 0; --k) {
    const std::ptrdiff_t idx = base + k * stride;
    next = S(x[idx]) - f.upper_e[k] * next;
    x[idx] = next;
  }
}

// One step of parallel cyclic reduction (paper 003) at row k with reach s: row k takes out
// its couplings to rows k - s and k + s, and couples to k - 2s and k + 2s instead. Rows
// outside [0, n) are the identity (a = c = d = 0, b = 1). After steps with s = 1, 2, 4, ...
// up to s >= n every row is decoupled: x_k = d_k / b_k. The coefficient arrays (a, b, c) are
// those of all columns (column-independent), d is one column's.
template <class S>
struct PcrRow {
  S a, b, c;
};
template <class S>
BOUSS_HD inline PcrRow<S> pcr_row(int n, int k, int s, const S* a, const S* b, const S* c, S& k1, S& k2) {
  const bool lo = k - s >= 0, hi = k + s < n;
  k1 = lo ? a[k] / b[k - s] : S(0);
  k2 = hi ? c[k] / b[k + s] : S(0);
  return {lo ? -a[k - s] * k1 : S(0), b[k] - (lo ? c[k - s] * k1 : S(0)) - (hi ? a[k + s] * k2 : S(0)),
          hi ? -c[k + s] * k2 : S(0)};
}
// After a step: the new rows (A2, B2, C2, D2) become the current ones, the old ones the
// space for the next step's.
template <class S>
BOUSS_HD inline void pcr_swap(S*& a, S*& a2, S*& b, S*& b2, S*& c, S*& c2, S*& d, S*& d2) {
  S* t;
  t = a, a = a2, a2 = t;
  t = b, b = b2, b2 = t;
  t = c, c = c2, c2 = t;
  t = d, d = d2, d2 = t;
}
template <class S>
BOUSS_HD inline S pcr_rhs(int n, int k, int s, const S* d, S k1, S k2) {
  return d[k] - (k - s >= 0 ? d[k - s] * k1 : S(0)) - (k + s < n ? d[k + s] * k2 : S(0));
}

}  // namespace bouss
