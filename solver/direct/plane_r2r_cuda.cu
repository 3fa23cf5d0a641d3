// The real-to-real plane transforms for the CUDA backend (solver/direct/plane_fft.hpp
// PlaneR2R): cuFFT has no cosine transform, so each axis is a batched 1D real-to-complex FFT
// of the same length between two passes of our own (solver/direct/fourier_kernels.hpp): before
// it the lines reordered (Makhoul's cosine transform), after it the real-to-real values taken
// from the complex ones. The passes between the x and y transforms turn the lines over (y
// fastest), so that both FFTs run on contiguous lines. In a build without CUDA,
// make_cufft_plane_r2r says so.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "solver/direct/fourier_kernels.hpp"
#include "solver/direct/plane_fft.hpp"

#if defined(BOUSS_HAVE_CUDA)
#include <cufft.h>

#include "solver/direct/cufft_check.hpp"

#include "grid/for_each.hpp"
#endif

namespace bouss {

#if defined(BOUSS_HAVE_CUDA)
namespace {

constexpr auto check = cufft_check;

// One axis's forward (real to complex) and inverse plans over `lines` contiguous lines of n.
template <class R>
struct LinePlans {
  static constexpr bool dbl = sizeof(R) == sizeof(double);
  cufftHandle fwd = 0, inv = 0;
  std::size_t work = 0;
  void make(int n, int lines) {
    check(cufftCreate(&fwd), "create");
    check(cufftCreate(&inv), "create");
    check(cufftSetAutoAllocation(fwd, 0), "work area");
    check(cufftSetAutoAllocation(inv, 0), "work area");
    int len = n, real_embed = n, spec_embed = n / 2 + 1;
    std::size_t f = 0, i = 0;
    check(cufftMakePlanMany(fwd, 1, &len, &real_embed, 1, n, &spec_embed, 1, n / 2 + 1, dbl ? CUFFT_D2Z : CUFFT_R2C,
                            lines, &f),
          "plan forward lines");
    check(cufftMakePlanMany(inv, 1, &len, &spec_embed, 1, n / 2 + 1, &real_embed, 1, n, dbl ? CUFFT_Z2D : CUFFT_C2R,
                            lines, &i),
          "plan inverse lines");
    work = std::max(f, i);
  }
  void share(void* area, cudaStream_t stream) {
    check(cufftSetWorkArea(fwd, area), "work area");
    check(cufftSetWorkArea(inv, area), "work area");
    check(cufftSetStream(fwd, stream), "set stream");
    check(cufftSetStream(inv, stream), "set stream");
  }
  void release() {
    if (fwd) cufftDestroy(fwd);
    if (inv) cufftDestroy(inv);
    fwd = inv = 0;
  }
  void forward(R* in, Complex<R>* out) const {
    if constexpr (dbl) check(cufftExecD2Z(fwd, in, reinterpret_cast<cufftDoubleComplex*>(out)), "forward lines");
    else check(cufftExecR2C(fwd, in, reinterpret_cast<cufftComplex*>(out)), "forward lines");
  }
  void inverse(Complex<R>* in, R* out) const {
    if constexpr (dbl) check(cufftExecZ2D(inv, reinterpret_cast<cufftDoubleComplex*>(in), out), "inverse lines");
    else check(cufftExecC2R(inv, reinterpret_cast<cufftComplex*>(in), out), "inverse lines");
  }
};

template <class R>
class CufftR2R final : public PlaneR2R<R> {
 public:
  CufftR2R(const Backend& backend, const Layout& L, const std::array<AxisTransform, 2>& kinds)
      : backend_(backend), L_(L), kx_(kinds[0]), ky_(kinds[1]) {
    try {
      const std::size_t work = plan(L, x_, y_);
      const std::size_t cells = std::size_t(L.n[0]) * L.n[1] * L.n[2];
      real_ = static_cast<R*>(backend.allocate(cells * sizeof(R)));
      cplx_ = static_cast<Complex<R>*>(backend.allocate(complex_size(L) * sizeof(Complex<R>)));
      if (work) work_ = backend.allocate(work);
      const auto stream = static_cast<cudaStream_t>(backend.stream());
      x_.share(work_, stream);
      if (L.n[1] > 1) y_.share(work_, stream);
    } catch (...) {
      release();
      throw;
    }
  }
  ~CufftR2R() override { release(); }
  // y's lines stay contiguous from its FFT to the mode solves and back.
  bool y_fastest() const override { return L_.n[1] > 1; }

  // The plans of both axes (y's none on a one-cell axis), and the work area they share.
  static std::size_t plan(const Layout& L, LinePlans<R>& x, LinePlans<R>& y) {
    x.make(L.n[0], L.n[1] * L.n[2]);
    if (L.n[1] > 1) y.make(L.n[1], L.n[0] * L.n[2]);
    return std::max(x.work, y.work);
  }
  static std::size_t complex_size(const Layout& L) {
    const std::size_t nx = L.n[0], ny = L.n[1];
    return std::max((nx / 2 + 1) * ny, (ny / 2 + 1) * nx) * std::size_t(L.n[2]);
  }

  void forward(const R* interior, R* spectrum) override {
    const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2], mx = nx / 2 + 1, my = ny / 2 + 1;
    const std::ptrdiff_t sy = L_.sy, sz = L_.sz;
    const AxisTransform kx = kx_, ky = ky_;
    R* const real = real_;
    Complex<R>* const cplx = cplx_;
    for_each(backend_, Box{{0, 0, 0}, {nx, ny, nz}}, [=] BOUSS_HD(int i, int j, int k) {
      const int from = kx == AxisTransform::walled ? cosine_reorder_source(i, nx) : i;
      real[i + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(ny) * k)] = interior[from + sy * j + sz * k];
    }, "r2r x lines in");
    x_.forward(real, cplx);
    if (ny == 1) {
      for_each(backend_, Box{{0, 0, 0}, {nx, 1, nz}}, [=] BOUSS_HD(int i, int, int k) {
        const Complex<R>* row = cplx + std::ptrdiff_t(mx) * k;
        spectrum[i + std::ptrdiff_t(nx) * k] = r2r_from_fft(kx, i, nx, [=](int m) { return row[m]; });
      }, "r2r x lines out");
      return;
    }
    // x's values, turned over (y fastest) and reordered along y for its cosine transform.
    for_each(backend_, Box{{0, 0, 0}, {ny, nx, nz}}, [=] BOUSS_HD(int m, int i, int k) {
      const int j = ky == AxisTransform::walled ? cosine_reorder_source(m, ny) : m;
      const Complex<R>* row = cplx + std::ptrdiff_t(mx) * (j + std::ptrdiff_t(ny) * k);
      real[m + std::ptrdiff_t(ny) * (i + std::ptrdiff_t(nx) * k)] =
          r2r_from_fft(kx, i, nx, [=](int q) { return row[q]; });
    }, "r2r x lines out, y lines in");
    y_.forward(real, cplx);
    for_each(backend_, Box{{0, 0, 0}, {ny, nx, nz}}, [=] BOUSS_HD(int j, int i, int k) {
      const Complex<R>* row = cplx + std::ptrdiff_t(my) * (i + std::ptrdiff_t(nx) * k);
      spectrum[j + std::ptrdiff_t(ny) * (i + std::ptrdiff_t(nx) * k)] =
          r2r_from_fft(ky, j, ny, [=](int q) { return row[q]; });
    }, "r2r y lines out");
  }

  void inverse(R* spectrum, R* interior) override {
    const int nx = L_.n[0], ny = L_.n[1], nz = L_.n[2], mx = nx / 2 + 1, my = ny / 2 + 1;
    const std::ptrdiff_t sy = L_.sy, sz = L_.sz;
    const AxisTransform kx = kx_, ky = ky_;
    R* const real = real_;
    Complex<R>* const cplx = cplx_;
    if (ny == 1) {
      for_each(backend_, Box{{0, 0, 0}, {mx, 1, nz}}, [=] BOUSS_HD(int m, int, int k) {
        const R* line = spectrum + std::ptrdiff_t(nx) * k;
        cplx[m + std::ptrdiff_t(mx) * k] = fft_from_r2r<Complex<R>>(kx, m, nx, [=](int q) { return line[q]; });
      }, "r2r x lines in (inverse)");
    } else {
      for_each(backend_, Box{{0, 0, 0}, {my, nx, nz}}, [=] BOUSS_HD(int m, int i, int k) {
        cplx[m + std::ptrdiff_t(my) * (i + std::ptrdiff_t(nx) * k)] = fft_from_r2r<Complex<R>>(
            ky, m, ny, [=](int q) { return spectrum[q + std::ptrdiff_t(ny) * (i + std::ptrdiff_t(nx) * k)]; });
      }, "r2r y lines in (inverse)");
      y_.inverse(cplx, real);
      // y's lines back in their order, turned over (x fastest), into x's complex lines.
      for_each(backend_, Box{{0, 0, 0}, {mx, ny, nz}}, [=] BOUSS_HD(int m, int j, int k) {
        const int at = ky == AxisTransform::walled ? cosine_reorder_target(j, ny) : j;
        cplx[m + std::ptrdiff_t(mx) * (j + std::ptrdiff_t(ny) * k)] = fft_from_r2r<Complex<R>>(
            kx, m, nx, [=](int q) { return real[at + std::ptrdiff_t(ny) * (q + std::ptrdiff_t(nx) * k)]; });
      }, "r2r y lines out, x lines in (inverse)");
    }
    x_.inverse(cplx, real);
    for_each(backend_, Box{{0, 0, 0}, {nx, ny, nz}}, [=] BOUSS_HD(int i, int j, int k) {
      const int at = kx == AxisTransform::walled ? cosine_reorder_target(i, nx) : i;
      interior[i + sy * j + sz * k] = real[at + std::ptrdiff_t(nx) * (j + std::ptrdiff_t(ny) * k)];
    }, "r2r x lines out (inverse)");
  }

 private:
  void release() {
    x_.release();
    y_.release();
    if (real_) backend_.deallocate(real_);
    if (cplx_) backend_.deallocate(cplx_);
    if (work_) backend_.deallocate(work_);
    real_ = nullptr;
    cplx_ = nullptr;
    work_ = nullptr;
  }

  Backend backend_;
  Layout L_;
  AxisTransform kx_, ky_;
  LinePlans<R> x_, y_;
  R* real_ = nullptr;
  Complex<R>* cplx_ = nullptr;
  void* work_ = nullptr;
};

}  // namespace

template <class R>
std::unique_ptr<PlaneR2R<R>> make_cufft_plane_r2r(const Backend& backend, const Layout& layout,
                                                   const std::array<AxisTransform, 2>& kinds) {
  return std::make_unique<CufftR2R<R>>(backend, layout, kinds);
}

template <class R>
std::size_t plane_r2r_work_bytes(const Backend& backend, const Layout& layout) {
  if (!backend.is_cuda()) return 0;
  LinePlans<R> x, y;
  std::size_t work = 0;
  try {
    work = CufftR2R<R>::plan(layout, x, y);
  } catch (...) {
    x.release();
    y.release();
    throw;
  }
  x.release();
  y.release();
  return work + std::size_t(layout.n[0]) * layout.n[1] * layout.n[2] * sizeof(R) +
         CufftR2R<R>::complex_size(layout) * sizeof(Complex<R>);
}
#else
template <class R>
std::unique_ptr<PlaneR2R<R>> make_cufft_plane_r2r(const Backend&, const Layout&, const std::array<AxisTransform, 2>&) {
  throw std::logic_error("cuFFT real-to-real plane transforms: this build has no CUDA");
}
template <class R>
std::size_t plane_r2r_work_bytes(const Backend&, const Layout&) {
  return 0;
}
#endif

template std::unique_ptr<PlaneR2R<double>> make_cufft_plane_r2r<double>(const Backend&, const Layout&,
                                                                        const std::array<AxisTransform, 2>&);
template std::unique_ptr<PlaneR2R<float>> make_cufft_plane_r2r<float>(const Backend&, const Layout&,
                                                                      const std::array<AxisTransform, 2>&);
template std::size_t plane_r2r_work_bytes<double>(const Backend&, const Layout&);
template std::size_t plane_r2r_work_bytes<float>(const Backend&, const Layout&);

}  // namespace bouss
