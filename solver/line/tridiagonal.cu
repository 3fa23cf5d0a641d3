// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/line/tridiagonal.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "solver/line/tridiagonal_kernels.hpp"

namespace bouss {

const char* tridiagonal_method_name(TridiagonalMethod m) {
  switch (m) {
    case TridiagonalMethod::thomas: return "thomas";
    case TridiagonalMethod::pcr: return "pcr";
    case TridiagonalMethod::automatic: return "auto";
  }
  return "?";
}

namespace {

// Shared memory pcr may use per block (the H200 allows 227 KiB with the opt-in).
constexpr std::size_t pcr_shared_limit = 200 * 1024;
constexpr int pcr_threads = 256;

// Columns a pcr block takes together: as many as fit, up to 32 (a warp's worth of adjacent
// columns reads whole 128-byte rows), or 0 if not even one fits.
template <class R>
int pcr_group(int nz) {
  const long fit = long(pcr_shared_limit / sizeof(R) / std::size_t(nz)) - 6;  // 6 coefficient arrays
  return int(std::clamp(fit / 2, 0L, 32L));
}

#if defined(__CUDACC__)
template <class R>
__global__ void pcr_kernel(int nx, int nz, int group, R* x, const R* r, std::ptrdiff_t sy, std::ptrdiff_t sz,
                           const R* a, const R* b, const R* c) {
  extern __shared__ unsigned char shared[];
  R* A = reinterpret_cast<R*>(shared);
  R *B = A + nz, *C = B + nz, *A2 = C + nz, *B2 = A2 + nz, *C2 = B2 + nz;
  R* D = C2 + nz;
  R* D2 = D + std::ptrdiff_t(group) * nz;
  const int i0 = blockIdx.x * group, j = blockIdx.y;
  const int items = group * nz;
  for (int t = threadIdx.x; t < nz; t += blockDim.x) {
    A[t] = a[t];
    B[t] = b[t];
    C[t] = c[t];
  }
  for (int t = threadIdx.x; t < items; t += blockDim.x) {  // adjacent threads, adjacent columns
    const int g = t % group, k = t / group, i = i0 + g;
    D[g * nz + k] = i < nx ? r[i + j * sy + k * sz] : R(0);
  }
  __syncthreads();
  for (int s = 1; s < nz; s *= 2) {
    for (int t = threadIdx.x; t < items; t += blockDim.x) {
      const int g = t % group, k = t / group;
      R k1, k2;
      pcr_row(nz, k, s, A, B, C, k1, k2);
      D2[g * nz + k] = pcr_rhs(nz, k, s, D + g * nz, k1, k2);
    }
    for (int k = threadIdx.x; k < nz; k += blockDim.x) {
      R k1, k2;
      const PcrRow<R> row = pcr_row(nz, k, s, A, B, C, k1, k2);
      A2[k] = row.a;
      B2[k] = row.b;
      C2[k] = row.c;
    }
    __syncthreads();
    pcr_swap(A, A2, B, B2, C, C2, D, D2);
  }
  for (int t = threadIdx.x; t < items; t += blockDim.x) {
    const int g = t % group, k = t / group, i = i0 + g;
    if (i < nx) x[i + j * sy + k * sz] = D[g * nz + k] / B[k];
  }
}
#endif

// The same steps for one column on the host (the CPU backend's pcr, for the tests).
template <class R>
void pcr_column(int nz, const R* a, const R* b, const R* c, std::vector<R>& d) {
  std::vector<R> A(a, a + nz), B(b, b + nz), C(c, c + nz), A2(nz), B2(nz), C2(nz), D2(nz);
  for (int s = 1; s < nz; s *= 2) {
    for (int k = 0; k < nz; ++k) {
      R k1, k2;
      const PcrRow<R> row = pcr_row(nz, k, s, A.data(), B.data(), C.data(), k1, k2);
      D2[k] = pcr_rhs(nz, k, s, d.data(), k1, k2);
      A2[k] = row.a;
      B2[k] = row.b;
      C2[k] = row.c;
    }
    A.swap(A2);
    B.swap(B2);
    C.swap(C2);
    d.swap(D2);
  }
  for (int k = 0; k < nz; ++k) d[k] /= B[k];
}

}  // namespace

template <class R>
BatchedTridiagonal<R>::BatchedTridiagonal(const Backend& backend, const Layout& layout, const std::vector<double>& a,
                                          const std::vector<double>& b, const std::vector<double>& c)
    : backend_(backend), layout_(layout) {
  const int nz = layout.n[2];
  if (int(a.size()) != nz || int(b.size()) != nz || int(c.size()) != nz)
    throw std::invalid_argument("BatchedTridiagonal: n_z rows of a, b and c");
  std::vector<R> host(6 * std::size_t(nz));
  // Thomas factors in double, rounded once.
  double ce = 0;
  for (int k = 0; k < nz; ++k) {
    const double inv = thomas_pivot(TriRow<double>{k ? a[k] : 0.0, b[k], c[k]}, ce);
    host[k] = R(a[k]);
    host[nz + k] = R(ce);
    host[2 * nz + k] = R(inv);
    host[3 * nz + k] = R(k ? a[k] : 0.0);
    host[4 * nz + k] = R(b[k]);
    host[5 * nz + k] = R(k + 1 < nz ? c[k] : 0.0);
  }
  tables_ = backend_.allocate(host.size() * sizeof(R));
  copy_bytes(tables_, backend_, host.data(), Backend::cpu(), host.size() * sizeof(R));
  const R* t = static_cast<const R*>(tables_);
  a_ = t;
  ce_ = t + nz;
  inv_ = t + 2 * nz;
  pa_ = t + 3 * nz;
  pb_ = t + 4 * nz;
  pc_ = t + 5 * nz;
}

template <class R>
BatchedTridiagonal<R>::~BatchedTridiagonal() {
  if (tables_) backend_.deallocate(tables_);
}

template <class R>
bool BatchedTridiagonal<R>::pcr_fits() const {
  return pcr_group<R>(layout_.n[2]) >= 1;
}

template <class R>
TridiagonalMethod BatchedTridiagonal<R>::choose() const {
  const long columns = long(layout_.n[0]) * layout_.n[1];
  return backend_.is_cuda() && columns < pcr_column_limit && pcr_fits() ? TridiagonalMethod::pcr
                                                                         : TridiagonalMethod::thomas;
}

template <class R>
double BatchedTridiagonal<R>::bytes(TridiagonalMethod m) const {
  if (m == TridiagonalMethod::automatic) m = choose();
  const double values = double(layout_.cells()) * (m == TridiagonalMethod::pcr ? 2 : 4);
  return values * sizeof(R);
}

template <class R>
void BatchedTridiagonal<R>::solve(const Field<R>& r, Field<R>& x, TridiagonalMethod m) const {
  if (m == TridiagonalMethod::automatic) m = choose();
  const int nx = layout_.n[0], ny = layout_.n[1], nz = layout_.n[2];
  const std::ptrdiff_t sy = layout_.sy, sz = layout_.sz;
  if (m == TridiagonalMethod::thomas) {
    const ThomasFactors<R> f{a_, ce_, inv_};
    const View<const R> rv = r.cview();
    const View<R> xv = x.view();
    for_each(backend_, Box{{0, 0, 0}, {nx, ny, 1}}, [=] BOUSS_HD(int i, int j, int) {
      thomas_factored(nz, f, rv, xv, i + j * sy, sz);
    }, "tridiagonal (thomas)");
    return;
  }
  if (!pcr_fits()) throw std::invalid_argument("pcr: columns of " + std::to_string(nz) + " do not fit its shared memory");
  if (backend_.is_cuda()) {
#if defined(__CUDACC__)
    const int group = pcr_group<R>(nz);
    const std::size_t shared = (6 + 2 * std::size_t(group)) * std::size_t(nz) * sizeof(R);
    static bool opted_in = false;  // per instantiation
    if (!opted_in) {
      const cudaError_t e =
          cudaFuncSetAttribute(pcr_kernel<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pcr_shared_limit));
      if (e != cudaSuccess)
        throw std::runtime_error(std::string("pcr: cannot raise the shared memory limit: ") + cudaGetErrorString(e));
      opted_in = true;
    }
    const dim3 grid((nx + group - 1) / group, ny, 1);
    pcr_kernel<R><<<grid, pcr_threads, shared, static_cast<cudaStream_t>(backend_.stream())>>>(
        nx, nz, group, x.view().origin, r.cview().origin, sy, sz, pa_, pb_, pc_);
    check_launch("tridiagonal (pcr)", backend_, x.name().c_str());
    return;
#endif
  }
  // The host: the same steps, column by column.
  const View<const R> rv = r.cview();
  const View<R> xv = x.view();
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      std::vector<R> d(nz);
      for (int k = 0; k < nz; ++k) d[k] = rv(i, j, k);
      pcr_column(nz, pa_, pb_, pc_, d);
      for (int k = 0; k < nz; ++k) xv(i, j, k) = d[k];
    }
}

template class BatchedTridiagonal<double>;
template class BatchedTridiagonal<float>;

}  // namespace bouss
