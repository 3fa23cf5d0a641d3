// Batched tridiagonal solves along z (paper 003): one system per vertical column (i, j) of a
// padded bouss field, with rows the same in every column (the operator depends on z alone,
// as a vertical line of the pressure or model problem does):
//   a_k x_{k-1} + b_k x_k + c_k x_{k+1} = r_k,   k = 0 .. n_z - 1   (a_0, c_{n-1} unused).
// Variants:
//   thomas: one thread per column, neighbouring columns on neighbouring threads (coalesced in
//     the x-fastest layout); the factors c'_k and 1/(b_k - a_k c'_{k-1}) computed once for all
//     columns, so a column's solve reads r once, writes d' into x, reads it back and writes x:
//     4 values of traffic per row (r, x, x, x).
//   pcr: parallel cyclic reduction, one CUDA block per group of adjacent columns, the group's
//     right-hand sides and the coefficients in shared memory for all log2(n) steps: r read
//     once, x written once (2 values per row). For few long columns (coarse levels, 64x64x1024),
//     where one thread per column leaves the GPU idle. On the CPU it runs the same steps per
//     column (for the tests; thomas is the CPU's choice).
//   automatic: pcr when the columns are too few to fill the GPU (under pcr_column_limit) and
//     short enough for its shared memory, thomas otherwise. Measured on the H200 (double):
//     thomas 0.286 ms, pcr 3.92 ms at 512x512x128; thomas 0.670, pcr 0.903 at 64x64x1024;
//     pcr 0.220, thomas 0.352 at 32x32x1024 (cuSPARSE's gtsv2StridedBatch beats both on few
//     long columns: 0.258, 0.077 ms).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "grid/field.hpp"

namespace bouss {

enum class TridiagonalMethod { thomas, pcr, automatic };
const char* tridiagonal_method_name(TridiagonalMethod m);

// Below this many columns a GPU runs pcr. Measured on the H200 (double, columns of 1024):
// pcr 0.221 ms against thomas 0.342 at 256 columns and 0.220 against 0.352 at 1024; thomas
// 0.670 against 0.903 at 4096.
constexpr long pcr_column_limit = 2048;

template <class R>
class BatchedTridiagonal {
 public:
  // Rows per level k (n_z entries each), for fields laid out as `layout`.
  BatchedTridiagonal(const Backend& backend, const Layout& layout, const std::vector<double>& a,
                     const std::vector<double>& b, const std::vector<double>& c);
  ~BatchedTridiagonal();
  // x = A^-1 r in every column (interior values; x and r may not alias).
  void solve(const Field<R>& r, Field<R>& x, TridiagonalMethod m = TridiagonalMethod::automatic) const;
  // What automatic picks for this shape on this backend.
  TridiagonalMethod choose() const;
  // Bytes of device traffic per solve (values of R read or written, each pass counted).
  double bytes(TridiagonalMethod m) const;
  // Whether pcr can take this column length (its shared memory).
  bool pcr_fits() const;

 private:
  Backend backend_;
  Layout layout_;
  void* tables_ = nullptr;  // a, c'_k, inv (thomas); a, b, c (pcr): 6 n_z values of R
  const R *a_ = nullptr, *ce_ = nullptr, *inv_ = nullptr, *pa_ = nullptr, *pb_ = nullptr, *pc_ = nullptr;
};

}  // namespace bouss
