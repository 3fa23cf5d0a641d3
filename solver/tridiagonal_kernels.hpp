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

namespace bouss {

template <class S>
struct TriRow {
  S lower, diag, upper;
};

// The Thomas algorithm (Gaussian elimination without pivoting: the systems must be
// diagonally dominant or symmetric positive definite). The forward sweep writes the
// eliminated right-hand side into x (x may alias r) and the eliminated upper diagonal into
// `scratch`; the backward sweep overwrites x with the solution. Bytes moved per row: r read,
// x written, scratch written, then x and scratch read and x written again.
template <class S, class Rows, class VR, class VX, class VW>
BOUSS_HD inline void thomas_line(int n, const Rows& rows, VR r, VX x, VW scratch, std::ptrdiff_t base,
                                 std::ptrdiff_t stride) {
  TriRow<S> row = rows(0);
  S inv = S(1) / row.diag;
  S c = row.upper * inv;
  S d = S(r[base]) * inv;
  scratch[base] = c;
  x[base] = d;
  for (int k = 1; k < n; ++k) {
    const std::ptrdiff_t idx = base + k * stride;
    row = rows(k);
    inv = S(1) / (row.diag - row.lower * c);
    c = row.upper * inv;
    d = (S(r[idx]) - row.lower * d) * inv;
    scratch[idx] = c;
    x[idx] = d;
  }
  S next = d;
  for (int k = n - 2; k >= 0; --k) {
    const std::ptrdiff_t idx = base + k * stride;
    next = S(x[idx]) - S(scratch[idx]) * next;
    x[idx] = next;
  }
}

}  // namespace bouss
