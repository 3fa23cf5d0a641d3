// Batched dense matrix products on a backend, column-major as BLAS has them: cuBLAS on CUDA
// (solver/direct/dense_gemm_cuda.cu, on the backend's stream, graph-capturable: its work
// area is the backend's), the system BLAS's CBLAS on the CPU (solver/direct/dense_gemm_cpu.cpp,
// the batch spread over OpenMP threads). The stretched axes' transforms of the direct solve
// (solver/direct/plane_eigen.hpp) are such products.
#pragma once

#include <cstddef>
#include <memory>

#include "grid/backend.hpp"

namespace bouss {

// One product's shape: C_b = op(A_b) op(B_b) for b = 0 .. batch - 1, op(A) m x k, op(B)
// k x n, C m x n (beta = 0: C is written, not read); X_b = X + b stride_x (0: one matrix for
// the whole batch).
struct GemmShape {
  bool trans_a = false, trans_b = false;
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  std::ptrdiff_t stride_a = 0, stride_b = 0, stride_c = 0;
  int batch = 1;
  double flops() const { return 2.0 * m * n * k * batch; }
};

template <class R>
class DenseGemm {
 public:
  virtual ~DenseGemm() = default;
  // A, B and C: memory of the backend.
  virtual void multiply(const GemmShape& s, const R* A, const R* B, R* C) = 0;
};

template <class R>
std::unique_ptr<DenseGemm<R>> make_dense_gemm(const Backend& backend);
// The backends' own (make_dense_gemm picks): cuBLAS needs a CUDA build.
template <class R>
std::unique_ptr<DenseGemm<R>> make_cpu_gemm();
template <class R>
std::unique_ptr<DenseGemm<R>> make_cublas_gemm(const Backend& backend);
// Bytes of the backend's memory the product's work area takes (cuBLAS's, 32 MiB; none on the CPU).
std::size_t dense_gemm_work_bytes(const Backend& backend);

}  // namespace bouss
