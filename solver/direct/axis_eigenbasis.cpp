// The eigenbasis of one horizontal axis's second difference (solver/direct/axis_eigenbasis.hpp).
#include "solver/direct/axis_eigenbasis.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

extern "C" {
// LAPACK (Fortran): the symmetric tridiagonal and the dense symmetric eigensolvers.
void dstev_(const char* jobz, const int* n, double* d, double* e, double* z, const int* ldz, double* work, int* info);
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
            const int* lwork, int* info);
}

namespace bouss {
namespace {

struct Widths {
  std::vector<double> dx;  // cell widths
  std::vector<double> c;   // c[i]: the conductance 1/dxc across face i (face 0: the periodic wrap's)
};

Widths widths_of(const std::vector<double>& faces, AxisTransform kind) {
  if (faces.size() < 2) throw std::invalid_argument("axis_eigenbasis: expected at least two faces");
  const int n = int(faces.size()) - 1;
  Widths w;
  w.dx.resize(n);
  for (int i = 0; i < n; ++i) {
    w.dx[i] = faces[i + 1] - faces[i];
    if (!(w.dx[i] > 0)) throw std::invalid_argument("axis_eigenbasis: expected increasing faces");
  }
  w.c.assign(n + 1, 0.0);
  for (int i = 1; i < n; ++i) w.c[i] = 2 / (w.dx[i - 1] + w.dx[i]);
  if (kind == AxisTransform::periodic && n > 1) w.c[0] = 2 / (w.dx[n - 1] + w.dx[0]);
  return w;
}

// L (symmetric, column-major), the fluxes' differences: what A is before dividing by dx.
std::vector<double> flux_matrix(const Widths& w, AxisTransform kind) {
  const int n = int(w.dx.size());
  std::vector<double> L(std::size_t(n) * n, 0.0);
  const auto couple = [&](int a, int b, double c) {
    L[a + std::size_t(n) * a] -= c;
    L[b + std::size_t(n) * b] -= c;
    L[a + std::size_t(n) * b] += c;
    L[b + std::size_t(n) * a] += c;
  };
  for (int i = 1; i < n; ++i) couple(i - 1, i, w.c[i]);
  if (kind == AxisTransform::periodic && n > 1) couple(n - 1, 0, w.c[0]);
  return L;
}

}  // namespace

std::vector<double> axis_second_difference(const std::vector<double>& faces, AxisTransform kind) {
  const Widths w = widths_of(faces, kind);
  std::vector<double> A = flux_matrix(w, kind);
  const int n = int(w.dx.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + std::size_t(n) * j] /= w.dx[i];
  return A;
}

AxisEigenbasis axis_eigenbasis(const std::vector<double>& faces, AxisTransform kind) {
  const Widths w = widths_of(faces, kind);
  const int n = int(w.dx.size());
  std::vector<double> root(n);
  for (int i = 0; i < n; ++i) root[i] = std::sqrt(w.dx[i]);
  // S = D^-1/2 L D^-1/2 and its eigenpairs, ascending (LAPACK's order).
  std::vector<double> lambda(n), Q(std::size_t(n) * n);
  int info = 0;
  const char vectors = 'V';
  if (kind == AxisTransform::walled || n <= 2) {
    const std::vector<double> L = flux_matrix(w, kind);
    std::vector<double> off(std::max(n - 1, 1));
    for (int i = 0; i < n; ++i) lambda[i] = L[i + std::size_t(n) * i] / w.dx[i];
    for (int i = 0; i + 1 < n; ++i) off[i] = L[i + std::size_t(n) * (i + 1)] / (root[i] * root[i + 1]);
    std::vector<double> work(std::max(1, 2 * n - 2));
    dstev_(&vectors, &n, lambda.data(), off.data(), Q.data(), &n, work.data(), &info);
  } else {
    Q = flux_matrix(w, kind);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) Q[i + std::size_t(n) * j] /= root[i] * root[j];
    const char upper = 'U';
    int lwork = -1;
    double size = 0;
    dsyev_(&vectors, &upper, &n, Q.data(), &n, lambda.data(), &size, &lwork, &info);
    lwork = int(size);
    std::vector<double> work(std::max(1, lwork));
    if (info == 0) dsyev_(&vectors, &upper, &n, Q.data(), &n, lambda.data(), work.data(), &lwork, &info);
  }
  if (info != 0) throw std::runtime_error("axis_eigenbasis: LAPACK's eigensolver failed (info " + std::to_string(info) + ")");

  AxisEigenbasis e;
  e.n = n;
  e.eigenvalues.resize(n);
  e.forward.resize(std::size_t(n) * n);
  e.inverse.resize(std::size_t(n) * n);
  double largest = 0;
  for (double l : lambda) largest = std::max(largest, std::fabs(l));
  for (int m = 0; m < n; ++m) {
    const int source = n - 1 - m;  // descending
    const double* q = Q.data() + std::size_t(n) * source;
    if (m == 0 && std::fabs(lambda[source]) > 1e-10 * std::max(largest, 1.0))
      throw std::runtime_error("axis_eigenbasis: the largest eigenvalue is not the constant mode's 0");
    e.eigenvalues[m] = m == 0 ? 0.0 : lambda[source];
    // The constant mode exactly, q_i = sqrt(dx_i / L): its forward row is the axis integral
    // over sqrt(L) to the last bit, so a singular problem's mean comes out exactly.
    const double length = faces[n] - faces[0];
    for (int i = 0; i < n; ++i) {
      e.forward[m + std::size_t(n) * i] = m == 0 ? w.dx[i] / std::sqrt(length) : q[i] * root[i];
      e.inverse[i + std::size_t(n) * m] = m == 0 ? 1 / std::sqrt(length) : q[i] / root[i];
    }
  }
  return e;
}

}  // namespace bouss
