// The horizontal transforms of the Fourier-tridiagonal solver (solver/direct/fourier_solver.hpp) on
// a grid cut over ranks in x and y (pencils of whole z columns): each rank's block goes to
// z slabs of whole x-y planes (an all-to-all), the planes are transformed there
// (solver/direct/plane_fft.hpp), and the spectrum goes to pencils of modes, each rank holding every
// z level of a band of rows j0 .. j0 + nj of the (nx/2 + 1) x ny modes (a second all-to-all),
// where the tridiagonal mode solves need whole lines; the inverse retraces both. Two
// transposes each way per pass, as paper 001's distributed solvers have. The slabs cut z and
// the bands cut y with Decomposition::cuts, so nz and ny must each have a level or row for
// every rank (SlabTransform::applies).
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/direct/plane_fft.hpp"

namespace bouss {

template <class R>
class SlabTransform {
 public:
  // part: this rank's block (Grid::part); the backend's ranks are those of the decomposition.
  SlabTransform(const Backend& backend, const Grid& part);
  ~SlabTransform();
  SlabTransform(const SlabTransform&) = delete;
  SlabTransform& operator=(const SlabTransform&) = delete;
  // Whether a grid of n cells can be transposed so over `ranks` ranks.
  static bool applies(const std::array<int, 3>& n, int ranks) { return ranks <= n[1] && ranks <= n[2]; }

  // The band of mode rows this rank holds, and its spectrum's size in complex values
  // ((nx/2 + 1) nj nz, x fastest, then the band's rows, then z).
  int j0() const { return j0_; }
  int nj() const { return nj_; }
  std::size_t band_size() const { return std::size_t(mx_) * nj_ * nz_; }
  // f's interior (this rank's block; ghosts not read) -> the band's spectrum (unnormalized,
  // as PlaneFft). Collective.
  void forward(const Field<R>& f, Complex<R>* band);
  // The band's spectrum (destroyed) -> f's interior (ghosts not written). Collective.
  void inverse(Complex<R>* band, Field<R>& f);
  // Bytes moved through memory per transform, counted as the traffic model counts a pass
  // (packing read and write, unpacking read and write, the plane transform's own).
  double bytes_per_transform() const;
  // This rank's slab: its z levels of whole planes.
  static Layout slab_layout(const Grid& part);
  // Bytes this rank allocates on the backend (slab, slab spectrum; the transposes' messages
  // in the backend's shared buffers, counted as two more slabs; not the plane transforms'
  // work area, plane_fft_work_bytes of slab_layout).
  static double estimate_memory(const Grid& part, std::size_t value_bytes);

 private:
  Backend backend_;
  Grid part_;
  int ranks_, rank_;
  int nx_, ny_, nz_, mx_;
  int j0_ = 0, nj_ = 0;
  std::vector<int> zcut_, jcut_;   // the slabs' first levels and the bands' first rows (ranks + 1 each)
  std::vector<Box> blocks_;        // every rank's block in the whole grid's x-y indices, all z
  Field<R> slab_;                  // this rank's slab: nx x ny x (its levels)
  Complex<R>* slab_spectrum_ = nullptr;
  std::unique_ptr<PlaneFft<R>> fft_;
  void exchange(const std::vector<std::size_t>& send_counts, const std::vector<std::size_t>& receive_counts);
};

}  // namespace bouss
