// The plane transforms of the direct solve along horizontal axes diagonalized by their dense
// eigenbases (solver/direct/axis_eigenbasis.hpp): a stretched axis's, or any axis's where the
// solve is asked to (the tests compare it with the FFT and cosine transforms). Each is a
// matrix product over all the lines of every z plane at once (solver/direct/dense_gemm.hpp:
// cuBLAS or CBLAS), the matrices stored in the solve's precision on the backend:
//   forward:  along x, each plane's interior (rows sy apart) times the x forward matrix into
//             the staging array; along y, each staged plane times the y forward matrix's
//             transpose into the spectrum (nx ny values a plane, x fastest: mode (i, j));
//   inverse:  back the same way, into the interior alone.
// Normalized: inverse(forward(f)) = f. The spectrum's mode (0, 0) is the plane integral over
// sqrt(Lx Ly) (each axis's constant mode: axis_eigenbasis.hpp).
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "grid/backend.hpp"
#include "grid/layout.hpp"
#include "solver/direct/axis_eigenbasis.hpp"
#include "solver/direct/dense_gemm.hpp"
#include "solver/direct/plane_fft.hpp"

namespace bouss {

template <class R>
class PlaneEigen final : public PlaneR2R<R> {
 public:
  // layout: the fields'; bases: x's and y's (n[0] and n[1] cells).
  PlaneEigen(const Backend& backend, const Layout& layout, const std::array<AxisEigenbasis, 2>& bases);
  ~PlaneEigen() override;
  PlaneEigen(const PlaneEigen&) = delete;
  PlaneEigen& operator=(const PlaneEigen&) = delete;

  // With a staging array of the caller's (r2r_spectrum_size values of the backend).
  void forward(const R* interior, R* staging, R* spectrum);
  void inverse(R* spectrum, R* staging, R* interior);
  // PlaneR2R: through a staging array of its own (allocated at the first call).
  void forward(const R* interior, R* spectrum) override;
  void inverse(R* spectrum, R* interior) override;

  // Each axis's eigenvalues in double on the backend (n[0], then n[1]).
  const double* eigenvalues(int axis) const { return axis == 0 ? eigen_ : eigen_ + layout_.n[0]; }
  // The floating-point operations of one forward (or one inverse) transform.
  double flops() const;
  // Bytes of the backend's memory it allocates: the four matrices, the eigenvalues, the
  // product's work area (not the staging array of the PlaneR2R calls).
  static double work_bytes(const Backend& backend, const Layout& layout);

 private:
  Backend backend_;
  Layout layout_;
  std::unique_ptr<DenseGemm<R>> gemm_;
  R* matrices_ = nullptr;  // x forward, x inverse, y forward, y inverse
  double* eigen_ = nullptr;
  R* own_staging_ = nullptr;
  const R* matrix(int axis, bool inverse) const;
};

}  // namespace bouss
