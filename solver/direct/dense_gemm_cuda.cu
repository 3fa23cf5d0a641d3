// cuBLAS's strided batched products for the CUDA backend (solver/direct/dense_gemm.hpp); in a
// build without CUDA, make_cublas_gemm says so. Compiled as CUDA when the build has it.
#include <stdexcept>
#include <string>

#include "solver/direct/dense_gemm.hpp"

#if defined(BOUSS_HAVE_CUDA)
#include <cublas_v2.h>
#endif

namespace bouss {

namespace {
constexpr std::size_t cublas_work_bytes = std::size_t(32) << 20;
}

#if defined(BOUSS_HAVE_CUDA)
namespace {

void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cuBLAS: ") + what + ": error " + std::to_string(int(e)));
}

template <class R>
class Cublas final : public DenseGemm<R> {
 public:
  // A handle on the backend's stream with a work area of the backend's memory: no allocation
  // inside a product, so the step's graph can capture it.
  explicit Cublas(const Backend& backend) : backend_(backend) {
    check(cublasCreate(&handle_), "create");
    try {
      check(cublasSetStream(handle_, static_cast<cudaStream_t>(backend.stream())), "set stream");
      work_ = backend_.allocate(cublas_work_bytes);
      check(cublasSetWorkspace(handle_, work_, cublas_work_bytes), "work area");
    } catch (...) {
      release();
      throw;
    }
  }
  ~Cublas() override { release(); }
  void multiply(const GemmShape& s, const R* A, const R* B, R* C) override {
    if (s.m == 0 || s.n == 0 || s.batch == 0) return;
    const cublasOperation_t ta = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const R one = 1, zero = 0;
    if constexpr (sizeof(R) == sizeof(double))
      check(cublasDgemmStridedBatched(handle_, ta, tb, s.m, s.n, s.k, &one, A, s.lda, s.stride_a, B, s.ldb, s.stride_b,
                                      &zero, C, s.ldc, s.stride_c, s.batch),
            "dgemm");
    else
      check(cublasSgemmStridedBatched(handle_, ta, tb, s.m, s.n, s.k, &one, A, s.lda, s.stride_a, B, s.ldb, s.stride_b,
                                      &zero, C, s.ldc, s.stride_c, s.batch),
            "sgemm");
  }

 private:
  void release() {
    if (handle_) cublasDestroy(handle_);
    if (work_) backend_.deallocate(work_);
  }
  Backend backend_;
  cublasHandle_t handle_ = nullptr;
  void* work_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<DenseGemm<R>> make_cublas_gemm(const Backend& backend) {
  return std::make_unique<Cublas<R>>(backend);
}
#else
template <class R>
std::unique_ptr<DenseGemm<R>> make_cublas_gemm(const Backend&) {
  throw std::logic_error("cuBLAS products: this build has no CUDA");
}
#endif

template std::unique_ptr<DenseGemm<double>> make_cublas_gemm<double>(const Backend&);
template std::unique_ptr<DenseGemm<float>> make_cublas_gemm<float>(const Backend&);

std::size_t dense_gemm_work_bytes(const Backend& backend) { return backend.is_cuda() ? cublas_work_bytes : 0; }

}  // namespace bouss
