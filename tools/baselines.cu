// cuFFT and cuSPARSE/cuBLAS Poisson baselines (see tools/baselines.hpp).
#include <cublas_v2.h>
#include <cufft.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "solver/direct/fourier_kernels.hpp"
#include "tools/baselines.hpp"

namespace bouss {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cufftResult e, const char* what) {
  if (e != CUFFT_SUCCESS) throw std::runtime_error(std::string(what) + ": cuFFT error " + std::to_string(int(e)));
}
void check(cusparseStatus_t e, const char* what) {
  if (e != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(e));
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS error " + std::to_string(int(e)));
}

template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(std::size_t n) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// Interior of a padded field <-> compact array (x fastest).
void gather(const Grid& g, const Field<double>& f, double* out) {
  const View<const double> v = f.cview();
  const int nx = g.layout.n[0], ny = g.layout.n[1];
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), g.layout.interior(Stagger::centre), [=] __host__ __device__(int i, int j, int k) {
    out[i + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(ny) * k)] = v[i + j * sy + k * sz];
  }, "baseline gather");
}
void scatter(const Grid& g, const double* in, double scale, Field<double>& f) {
  const View<double> v = f.view();
  const int nx = g.layout.n[0], ny = g.layout.n[1];
  const std::ptrdiff_t sy = v.sy, sz = v.sz;
  for_each(f.backend(), g.layout.interior(Stagger::centre), [=] __host__ __device__(int i, int j, int k) {
    v[i + j * sy + k * sz] = scale * in[i + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(ny) * k)];
  }, "baseline scatter");
}

}  // namespace

bool baselines_available() { return true; }

BaselineRun fft_poisson(const Grid& g, const Field<double>& b, Field<double>& x, int repeats) {
  const Backend& be = b.backend();
  const int nx = g.layout.n[0], ny = g.layout.n[1], nz = g.layout.n[2];
  const std::size_t N = std::size_t(nx) * ny * nz, M = std::size_t(nz) * ny * (nx / 2 + 1);
  DeviceArray<double> real(N);
  DeviceArray<cufftDoubleComplex> spec(M);
  cufftHandle forward, inverse;
  check(cufftPlan3d(&forward, nz, ny, nx, CUFFT_D2Z), "cufftPlan3d D2Z");
  check(cufftPlan3d(&inverse, nz, ny, nx, CUFFT_Z2D), "cufftPlan3d Z2D");
  const auto stream = static_cast<cudaStream_t>(be.stream());
  check(cufftSetStream(forward, stream), "cufftSetStream");
  check(cufftSetStream(inverse, stream), "cufftSetStream");
  const double rx = 1 / (g.h[0] * g.h[0]), ry = 1 / (g.h[1] * g.h[1]), rz = 1 / (g.h[2] * g.h[2]);
  cufftDoubleComplex* s = spec.p;
  const int mx = nx / 2 + 1;
  auto solve = [&] {
    gather(g, b, real.p);
    check(cufftExecD2Z(forward, real.p, spec.p), "cufftExecD2Z");
    // Divide by the 7-point operator's eigenvalue; the mean mode is set to zero.
    for_each(be, Box{{0, 0, 0}, {mx, ny, nz}}, [=] __host__ __device__(int i, int j, int k) {
      const double lambda = periodic_laplacian_eigenvalue(i, nx, rx) + periodic_laplacian_eigenvalue(j, ny, ry) +
                            periodic_laplacian_eigenvalue(k, nz, rz);
      const std::ptrdiff_t idx = i + std::ptrdiff_t(mx) * (j + std::ptrdiff_t(ny) * k);
      const double f = (i == 0 && j == 0 && k == 0) ? 0 : 1 / lambda;
      s[idx].x *= f;
      s[idx].y *= f;
    }, "fft eigenvalue divide");
    check(cufftExecZ2D(inverse, spec.p, real.p), "cufftExecZ2D");
    scatter(g, real.p, double(1) / double(N), x);
  };
  BaselineRun run;
  run.ms = median_ms(be, repeats, solve);
  run.iterations = 1;
  // gather 16, D2Z read 8 + write 8, divide 16 + 16 (complex, half), Z2D 8 + 8, scatter 16: per cell
  run.bytes = double(N) * (16 + 16 + 16 + 16 + 16);
  cufftDestroy(forward);
  cufftDestroy(inverse);
  return run;
}

BaselineRun csr_cg(const Grid& g, const FieldBC& bc, const CsrCgOptions& o, const Field<double>& b, Field<double>& x) {
  const Backend& be = b.backend();
  const int nx = g.layout.n[0], ny = g.layout.n[1], nz = g.layout.n[2];
  for (int a = 0; a < 3; ++a)
    if (g.layout.n[a] < 3) throw std::runtime_error("csr_cg baseline: every axis needs at least 3 cells");
  if (g.stretched()) throw std::runtime_error("csr_cg baseline: a uniform z only");
  const std::size_t N = std::size_t(nx) * ny * nz, columns = std::size_t(nx) * ny;
  const bool lines = o.line_preconditioner;
  // A = -(lap - shift) on the compact cells, 7 entries a row, boundary conditions folded in;
  // with lines, its vertical part (each column's tridiagonal system, the horizontal couplings
  // left on the diagonal) in gtsvInterleavedBatch's order (row k of column s at k columns + s).
  DeviceArray<int> rowptr(N + 1), cols(7 * N);
  DeviceArray<double> vals(7 * N), tl(lines ? N : 0), td(lines ? N : 0), tu(lines ? N : 0);
  int* rp = rowptr.p;
  int* cp = cols.p;
  double* vp = vals.p;
  double *lo_p = tl.p, *di_p = td.p, *up_p = tu.p;
  int kind[6];
  for (int f = 0; f < 6; ++f) kind[f] = int(bc.face[f].kind);
  const int k0 = kind[0], k1 = kind[1], k2 = kind[2], k3 = kind[3], k4 = kind[4], k5 = kind[5];
  const double r2x = 1 / (g.h[0] * g.h[0]), r2y = 1 / (g.h[1] * g.h[1]), r2z = 1 / (g.h[2] * g.h[2]);
  const double shift = o.shift;
  for_each(be, Box{{0, 0, 0}, {nx, ny, nz}}, [=] __host__ __device__(int i, int j, int k) {
    const int n[3] = {nx, ny, nz}, p[3] = {i, j, k}, kinds[6] = {k0, k1, k2, k3, k4, k5};
    const double r2[3] = {r2x, r2y, r2z};
    const std::size_t row = i + std::size_t(nx) * (j + std::size_t(ny) * k);
    std::size_t e = 7 * row;
    rp[row] = int(e);
    if (row == 0) rp[std::size_t(nx) * ny * nz] = int(7 * std::size_t(nx) * ny * nz);
    double diag = shift;
    int order[7];
    double value[7];
    int m = 0;
    for (int a = 0; a < 3; ++a) {
      diag += 2 * r2[a];
      for (int side = 0; side < 2; ++side) {
        int q[3] = {p[0], p[1], p[2]};
        q[a] += side ? 1 : -1;
        if (q[a] < 0 || q[a] >= n[a]) {
          const int kd = kinds[2 * a + side];
          if (kd == int(BoundaryKind::periodic)) q[a] = (q[a] + n[a]) % n[a];
          else {
            diag -= r2[a] * cell_wall_ghost(BoundaryKind(kd), 0.0, 0.0, side).self;  // grid/boundary.hpp
            order[m] = -1;  // placeholder: an explicit zero keeps 7 entries a row
            value[m++] = 0;
            continue;
          }
        }
        order[m] = int(q[0] + nx * (q[1] + ny * q[2]));
        value[m++] = -r2[a];
      }
    }
    order[m] = int(row);
    value[m++] = diag;
    if (lo_p) {  // the line's row: z neighbours inside the column (a periodic z's wrap left out)
      const std::size_t at = std::size_t(k) * (std::size_t(nx) * ny) + i + std::size_t(nx) * j;
      lo_p[at] = k > 0 ? -r2z : 0.0;
      di_p[at] = diag;
      up_p[at] = k + 1 < nz ? -r2z : 0.0;
    }
    // Sort by column (insertion sort of 7), placeholders take unused columns' zero.
    for (int s = 0; s < 7; ++s) if (order[s] < 0) order[s] = int(row);  // merged into the diagonal column
    for (int s = 1; s < 7; ++s)
      for (int t = s; t > 0 && order[t - 1] > order[t]; --t) {
        int c = order[t]; order[t] = order[t - 1]; order[t - 1] = c;
        double v = value[t]; value[t] = value[t - 1]; value[t - 1] = v;
      }
    // Merge equal columns so each appears once; pad the row with zeros on the diagonal.
    int out = 0;
    for (int s = 0; s < 7; ++s) {
      if (out > 0 && order[s] == cp[e + out - 1]) vp[e + out - 1] += value[s];
      else { cp[e + out] = order[s]; vp[e + out] = value[s]; ++out; }
    }
    for (; out < 7; ++out) { cp[e + out] = cp[e + out - 1]; vp[e + out] = 0; }
  }, "csr assemble");
  be.synchronize();

  cusparseHandle_t sp;
  cublasHandle_t bl;
  check(cusparseCreate(&sp), "cusparseCreate");
  check(cublasCreate(&bl), "cublasCreate");
  const auto stream = static_cast<cudaStream_t>(be.stream());
  check(cusparseSetStream(sp, stream), "cusparseSetStream");
  check(cublasSetStream(bl, stream), "cublasSetStream");
  cusparseSpMatDescr_t A;
  check(cusparseCreateCsr(&A, N, N, 7 * N, rowptr.p, cols.p, vals.p, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), "cusparseCreateCsr");
  DeviceArray<double> xs(N), r(N), p(N), Ap(N), rhs(N), z(lines ? N : 0);
  DeviceArray<double> wl(lines ? N : 0), wd(lines ? N : 0), wu(lines ? N : 0);
  cusparseDnVecDescr_t vp_desc, vap_desc;
  check(cusparseCreateDnVec(&vp_desc, N, p.p, CUDA_R_64F), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&vap_desc, N, Ap.p, CUDA_R_64F), "cusparseCreateDnVec");
  const double one = 1, zero = 0;
  std::size_t buffer_bytes = 0, tri_bytes = 0;
  check(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp_desc, &zero, vap_desc, CUDA_R_64F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes), "cusparseSpMV_bufferSize");
  if (lines)
    check(cusparseDgtsvInterleavedBatch_bufferSizeExt(sp, 0, nz, wl.p, wd.p, wu.p, z.p, int(columns), &tri_bytes),
          "gtsvInterleavedBatch_bufferSizeExt");
  DeviceArray<char> buffer(buffer_bytes);
  DeviceArray<unsigned char> tri_buffer(tri_bytes);
  // z = M^-1 r: gtsvInterleavedBatch factors in place, so it starts from copies each time.
  const std::size_t bytes = N * sizeof(double);
  auto precondition = [&] {
    check(cudaMemcpyAsync(z.p, r.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    check(cudaMemcpyAsync(wl.p, tl.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    check(cudaMemcpyAsync(wd.p, td.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    check(cudaMemcpyAsync(wu.p, tu.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    check(cusparseDgtsvInterleavedBatch(sp, 0, nz, wl.p, wd.p, wu.p, z.p, int(columns), tri_buffer.p),
          "gtsvInterleavedBatch");
  };
  double* zp = lines ? z.p : r.p;  // unpreconditioned: z is r
  gather(g, b, rhs.p);
  const double minus_one = -1;
  check(cublasDscal(bl, int(N), &minus_one, rhs.p, 1), "cublasDscal");  // A x = -b
  double bnorm = 0;
  check(cublasDnrm2(bl, int(N), rhs.p, 1, &bnorm), "cublasDnrm2");
  BaselineRun run;
  auto solve = [&] {
    run.residual_history.assign(1, 1.0);
    check(cudaMemsetAsync(xs.p, 0, bytes, stream), "cudaMemset");
    check(cudaMemcpyAsync(r.p, rhs.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    if (lines) precondition();
    check(cudaMemcpyAsync(p.p, zp, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy");
    double rz = 0, rr = bnorm * bnorm;
    check(cublasDdot(bl, int(N), r.p, 1, zp, 1, &rz), "cublasDdot");
    int it = 0;
    while (it < o.max_iterations && std::sqrt(rr) > o.tolerance * bnorm) {
      check(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp_desc, &zero, vap_desc, CUDA_R_64F,
                         CUSPARSE_SPMV_ALG_DEFAULT, buffer.p), "cusparseSpMV");
      double pap = 0;
      check(cublasDdot(bl, int(N), p.p, 1, Ap.p, 1, &pap), "cublasDdot");
      const double alpha = rz / pap, neg_alpha = -alpha;
      check(cublasDaxpy(bl, int(N), &alpha, p.p, 1, xs.p, 1), "cublasDaxpy");
      check(cublasDaxpy(bl, int(N), &neg_alpha, Ap.p, 1, r.p, 1), "cublasDaxpy");
      if (lines) {
        check(cublasDdot(bl, int(N), r.p, 1, r.p, 1, &rr), "cublasDdot");
        precondition();
      }
      double rz_new = 0;
      check(cublasDdot(bl, int(N), r.p, 1, zp, 1, &rz_new), "cublasDdot");
      if (!lines) rr = rz_new;
      const double beta = rz_new / rz;
      rz = rz_new;
      check(cublasDscal(bl, int(N), &beta, p.p, 1), "cublasDscal");
      check(cublasDaxpy(bl, int(N), &one, zp, 1, p.p, 1), "cublasDaxpy");
      ++it;
      run.residual_history.push_back(std::sqrt(rr) / bnorm);
    }
    run.iterations = it;
  };
  run.ms = median_ms(be, o.repeats, solve);
  scatter(g, xs.p, 1, x);
  // Per iteration and cell: SpMV 7 values (8) + 7 columns (4) + row pointer (4) + 7 reads of p
  // through cache (8) + write Ap (8); two dots (16 + 16); x, r axpy (24 + 24); p scale and add
  // (16 + 24). The line preconditioner adds the copies of r and the three coefficient arrays
  // (4 x 16), the solve (reads dl, d, du, z, writes d, du, z: 7 x 8) and the dot (r, r) (16).
  run.bytes = double(N) * run.iterations * (7 * 12 + 4 + 8 + 8 + 32 + 48 + 40 + (lines ? 64 + 56 + 16 : 0));
  cusparseDestroyDnVec(vp_desc);
  cusparseDestroyDnVec(vap_desc);
  cusparseDestroySpMat(A);
  cusparseDestroy(sp);
  cublasDestroy(bl);
  return run;
}

BaselineRun gtsv_baseline(const Layout& L, const std::vector<double>& a, const std::vector<double>& b,
                          const std::vector<double>& c, const Field<double>& r, Field<double>& x, bool interleaved,
                          int repeats) {
  const Backend& be = r.backend();
  const int nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const std::size_t columns = std::size_t(nx) * ny, N = columns * nz;
  DeviceArray<double> dl(N), d(N), du(N), rhs(N), work(N);
  // Per-system coefficient arrays, in the solver's order: system s = i + nx j, row k at
  // s * nz + k (strided) or k * columns + s (interleaved).
  {
    std::vector<double> hl(N), hd(N), hu(N);
    for (std::size_t s = 0; s < columns; ++s)
      for (int k = 0; k < nz; ++k) {
        const std::size_t at = interleaved ? std::size_t(k) * columns + s : s * nz + k;
        hl[at] = k ? a[k] : 0.0;
        hd[at] = b[k];
        hu[at] = k + 1 < nz ? c[k] : 0.0;
      }
    check(cudaMemcpy(dl.p, hl.data(), N * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d.p, hd.data(), N * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(du.p, hu.data(), N * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  const View<const double> rv = r.cview();
  const std::ptrdiff_t sy = rv.sy, sz = rv.sz;
  double* packed = rhs.p;
  for_each(be, L.interior(Stagger::centre), [=] __host__ __device__(int i, int j, int k) {
    const std::size_t s = i + std::size_t(nx) * j;
    packed[interleaved ? std::size_t(k) * columns + s : s * nz + k] = rv[i + j * sy + k * sz];
  }, "gtsv gather");
  cusparseHandle_t handle;
  check(cusparseCreate(&handle), "cusparseCreate");
  const auto stream = static_cast<cudaStream_t>(be.stream());
  check(cusparseSetStream(handle, stream), "cusparseSetStream");
  std::size_t buffer_bytes = 0;
  if (interleaved)
    check(cusparseDgtsvInterleavedBatch_bufferSizeExt(handle, 0, nz, dl.p, d.p, du.p, work.p, int(columns), &buffer_bytes),
          "gtsvInterleavedBatch_bufferSizeExt");
  else
    check(cusparseDgtsv2StridedBatch_bufferSizeExt(handle, nz, dl.p, d.p, du.p, work.p, int(columns), nz, &buffer_bytes),
          "gtsv2StridedBatch_bufferSizeExt");
  DeviceArray<unsigned char> buffer(buffer_bytes);
  // gtsvInterleavedBatch factors in place (its results were wrong on repeated calls with the
  // same dl, d, du): each solve starts from a copy of the coefficients as well.
  DeviceArray<double> dl0(interleaved ? N : 0), d0(interleaved ? N : 0), du0(interleaved ? N : 0);
  if (interleaved) {
    check(cudaMemcpy(dl0.p, dl.p, N * sizeof(double), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    check(cudaMemcpy(d0.p, d.p, N * sizeof(double), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    check(cudaMemcpy(du0.p, du.p, N * sizeof(double), cudaMemcpyDeviceToDevice), "cudaMemcpy");
  }
  auto copy_in = [&] {
    check(cudaMemcpyAsync(work.p, rhs.p, N * sizeof(double), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    if (interleaved) {
      check(cudaMemcpyAsync(dl.p, dl0.p, N * sizeof(double), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
      check(cudaMemcpyAsync(d.p, d0.p, N * sizeof(double), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
      check(cudaMemcpyAsync(du.p, du0.p, N * sizeof(double), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    }
  };
  auto solve = [&] {
    copy_in();
    if (interleaved)
      check(cusparseDgtsvInterleavedBatch(handle, 0, nz, dl.p, d.p, du.p, work.p, int(columns), buffer.p),
            "gtsvInterleavedBatch");
    else
      check(cusparseDgtsv2StridedBatch(handle, nz, dl.p, d.p, du.p, work.p, int(columns), nz, buffer.p),
            "gtsv2StridedBatch");
  };
  BaselineRun run;
  const double copy_ms = median_ms(be, repeats, copy_in);  // first: the solves leave the solution in work
  run.ms = std::max(0.0, median_ms(be, repeats, solve) - copy_ms);
  run.iterations = 1;
  run.bytes = double(N) * 5 * sizeof(double);
  const double* solved = work.p;
  const View<double> xv = x.view();
  for_each(be, L.interior(Stagger::centre), [=] __host__ __device__(int i, int j, int k) {
    const std::size_t s = i + std::size_t(nx) * j;
    xv[i + j * sy + k * sz] = solved[interleaved ? std::size_t(k) * columns + s : s * nz + k];
  }, "gtsv scatter");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cusparseDestroy(handle);
  return run;
}

}  // namespace bouss
