// Batched matrix products through the system BLAS's CBLAS (solver/direct/dense_gemm.hpp).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <type_traits>

#include "solver/direct/dense_gemm.hpp"

namespace bouss {
namespace {

template <class R>
void gemm(const GemmShape& s, const R* A, const R* B, R* C, int n0, int n) {
  const CBLAS_TRANSPOSE ta = s.trans_a ? CblasTrans : CblasNoTrans, tb = s.trans_b ? CblasTrans : CblasNoTrans;
  // Columns n0 .. n0 + n of C: those of op(B).
  const R* b = s.trans_b ? B + n0 : B + std::ptrdiff_t(n0) * s.ldb;
  R* c = C + std::ptrdiff_t(n0) * s.ldc;
  if constexpr (std::is_same_v<R, double>)
    cblas_dgemm(CblasColMajor, ta, tb, s.m, n, s.k, 1.0, A, s.lda, b, s.ldb, 0.0, c, s.ldc);
  else
    cblas_sgemm(CblasColMajor, ta, tb, s.m, n, s.k, 1.0f, A, s.lda, b, s.ldb, 0.0f, c, s.ldc);
}

template <class R>
class CpuGemm final : public DenseGemm<R> {
 public:
  // Each thread takes whole products of the batch, or, for fewer products than threads, a
  // share of each product's columns (the reference BLAS runs on one thread).
  void multiply(const GemmShape& s, const R* A, const R* B, R* C) override {
    if (s.m == 0 || s.n == 0 || s.batch == 0) return;
    const int threads = omp_get_max_threads();
    const int chunks = s.batch >= threads ? 1 : std::max(1, std::min(s.n, threads / s.batch));
    const int per = (s.n + chunks - 1) / chunks;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < s.batch; ++b)
      for (int c = 0; c < chunks; ++c) {
        const int n0 = c * per, n = std::min(per, s.n - n0);
        if (n > 0) gemm<R>(s, A + b * s.stride_a, B + b * s.stride_b, C + b * s.stride_c, n0, n);
      }
  }
};

}  // namespace

template <class R>
std::unique_ptr<DenseGemm<R>> make_cpu_gemm() {
  return std::make_unique<CpuGemm<R>>();
}
template std::unique_ptr<DenseGemm<double>> make_cpu_gemm<double>();
template std::unique_ptr<DenseGemm<float>> make_cpu_gemm<float>();

template <class R>
std::unique_ptr<DenseGemm<R>> make_dense_gemm(const Backend& backend) {
  if (backend.is_cuda()) return make_cublas_gemm<R>(backend);
  return make_cpu_gemm<R>();
}
template std::unique_ptr<DenseGemm<double>> make_dense_gemm<double>(const Backend&);
template std::unique_ptr<DenseGemm<float>> make_dense_gemm<float>(const Backend&);

}  // namespace bouss
