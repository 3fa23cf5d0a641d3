// Plane transforms along dense eigenbases, as matrix products (solver/direct/plane_eigen.hpp).
#include "solver/direct/plane_eigen.hpp"

#include <stdexcept>

namespace bouss {

template <class R>
PlaneEigen<R>::PlaneEigen(const Backend& backend, const Layout& layout, const std::array<AxisEigenbasis, 2>& bases)
    : backend_(backend), layout_(layout), gemm_(make_dense_gemm<R>(backend)) {
  const int nx = layout.n[0], ny = layout.n[1];
  if (bases[0].n != nx || bases[1].n != ny)
    throw std::invalid_argument("PlaneEigen: the eigenbases are not of the layout's x and y");
  const std::size_t sx = std::size_t(nx) * nx, sy = std::size_t(ny) * ny;
  std::vector<R> host(2 * sx + 2 * sy);
  for (std::size_t i = 0; i < sx; ++i) {
    host[i] = R(bases[0].forward[i]);
    host[sx + i] = R(bases[0].inverse[i]);
  }
  for (std::size_t i = 0; i < sy; ++i) {
    host[2 * sx + i] = R(bases[1].forward[i]);
    host[2 * sx + sy + i] = R(bases[1].inverse[i]);
  }
  std::vector<double> eigen(bases[0].eigenvalues);
  eigen.insert(eigen.end(), bases[1].eigenvalues.begin(), bases[1].eigenvalues.end());
  matrices_ = static_cast<R*>(backend.allocate(host.size() * sizeof(R)));
  eigen_ = static_cast<double*>(backend.allocate(eigen.size() * sizeof(double)));
  copy_bytes(matrices_, backend, host.data(), Backend::cpu(), host.size() * sizeof(R));
  copy_bytes(eigen_, backend, eigen.data(), Backend::cpu(), eigen.size() * sizeof(double));
}

template <class R>
PlaneEigen<R>::~PlaneEigen() {
  backend_.deallocate(matrices_);
  backend_.deallocate(eigen_);
  if (own_staging_) backend_.deallocate(own_staging_);
}

template <class R>
const R* PlaneEigen<R>::matrix(int axis, bool inverse) const {
  const std::size_t sx = std::size_t(layout_.n[0]) * layout_.n[0], sy = std::size_t(layout_.n[1]) * layout_.n[1];
  return matrices_ + (axis == 0 ? (inverse ? sx : 0) : 2 * sx + (inverse ? sy : 0));
}

template <class R>
void PlaneEigen<R>::forward(const R* interior, R* staging, R* spectrum) {
  const int nx = layout_.n[0], ny = layout_.n[1], nz = layout_.n[2];
  const std::ptrdiff_t plane = std::ptrdiff_t(nx) * ny;
  // Along x: staging_k = Fx (nx x nx) interior_k (nx x ny, columns sy apart).
  GemmShape x;
  x.m = nx, x.n = ny, x.k = nx, x.lda = nx, x.ldb = int(layout_.sy), x.ldc = nx;
  x.stride_a = 0, x.stride_b = layout_.sz, x.stride_c = plane, x.batch = nz;
  gemm_->multiply(x, matrix(0, false), interior, staging);
  // Along y: spectrum_k = staging_k (nx x ny) Fy^T (ny x ny).
  GemmShape y;
  y.trans_b = true;
  y.m = nx, y.n = ny, y.k = ny, y.lda = nx, y.ldb = ny, y.ldc = nx;
  y.stride_a = plane, y.stride_b = 0, y.stride_c = plane, y.batch = nz;
  gemm_->multiply(y, staging, matrix(1, false), spectrum);
}

template <class R>
void PlaneEigen<R>::inverse(R* spectrum, R* staging, R* interior) {
  const int nx = layout_.n[0], ny = layout_.n[1], nz = layout_.n[2];
  const std::ptrdiff_t plane = std::ptrdiff_t(nx) * ny;
  GemmShape y;
  y.trans_b = true;
  y.m = nx, y.n = ny, y.k = ny, y.lda = nx, y.ldb = ny, y.ldc = nx;
  y.stride_a = plane, y.stride_b = 0, y.stride_c = plane, y.batch = nz;
  gemm_->multiply(y, spectrum, matrix(1, true), staging);
  GemmShape x;
  x.m = nx, x.n = ny, x.k = nx, x.lda = nx, x.ldb = nx, x.ldc = int(layout_.sy);
  x.stride_a = 0, x.stride_b = plane, x.stride_c = layout_.sz, x.batch = nz;
  gemm_->multiply(x, matrix(0, true), staging, interior);
}

template <class R>
void PlaneEigen<R>::forward(const R* interior, R* spectrum) {
  if (!own_staging_) own_staging_ = static_cast<R*>(backend_.allocate(r2r_spectrum_size(layout_) * sizeof(R)));
  forward(interior, own_staging_, spectrum);
}

template <class R>
void PlaneEigen<R>::inverse(R* spectrum, R* interior) {
  if (!own_staging_) own_staging_ = static_cast<R*>(backend_.allocate(r2r_spectrum_size(layout_) * sizeof(R)));
  inverse(spectrum, own_staging_, interior);
}

template <class R>
double PlaneEigen<R>::flops() const {
  const double nx = layout_.n[0], ny = layout_.n[1], nz = layout_.n[2];
  return 2.0 * nx * ny * nz * (nx + ny);
}

template <class R>
double PlaneEigen<R>::work_bytes(const Backend& backend, const Layout& layout) {
  const double nx = layout.n[0], ny = layout.n[1];
  return 2 * (nx * nx + ny * ny) * sizeof(R) + (nx + ny) * sizeof(double) + double(dense_gemm_work_bytes(backend));
}

template class PlaneEigen<double>;
template class PlaneEigen<float>;

}  // namespace bouss
