// The horizontal transforms of the direct solve (solver/direct/fourier_solver.hpp) on a grid
// cut over ranks in x and y (pencils of whole z columns): each rank's block goes to z slabs
// of whole x-y planes (an all-to-all), the planes are transformed there by the one-rank
// plane transform of the box (a periodic box's half-spectrum FFT, solver/direct/plane_fft.hpp;
// a walled box's cosine transforms, plane_cosine.hpp; stretched axes' eigenbases,
// plane_eigen.hpp), and the spectrum goes to bands of modes, each rank holding every z level
// of a range of the plane's modes (a second all-to-all), where the tridiagonal mode solves
// need whole lines; the inverse retraces both. Two transposes each way per pass, as paper
// 001's distributed solvers have. The slabs and the bands are even cuts of the levels and of
// the modes (transpose_steps.hpp even_cuts): a rank may hold no level (more ranks than z levels) or no mode, and
// rank 0 holds mode 0, so every grid can be transposed on every rank count.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/direct/plane_fft.hpp"
#include "solver/direct/transposed_planes.hpp"

namespace bouss {

template <class R>
class SlabTransform final : public TransposedPlanes<R> {
 public:
  // The plane transform of the slab's planes, made for the slab's layout: a real-to-real one
  // (cosine, eigenbases), or none for the periodic box's half-spectrum FFT.
  using MakeR2R = std::function<std::unique_ptr<PlaneR2R<R>>(const Layout& slab)>;
  // part: this rank's block (Grid::part); the backend's ranks are those of the decomposition.
  SlabTransform(const Backend& backend, const Grid& part, MakeR2R make_r2r = nullptr);
  ~SlabTransform() override;
  SlabTransform(const SlabTransform&) = delete;
  SlabTransform& operator=(const SlabTransform&) = delete;

  // A plane's modes: columns() a row ((nx/2 + 1) complex values, or nx real ones), ny rows;
  // mode m = i + columns() j. This rank's band: modes m0() .. m0() + modes() of every level,
  // values_per_mode() values of R each (2: complex), mode fastest, then z.
  int columns() const { return columns_; }
  int m0() const { return m0_; }
  int modes() const { return modes_; }
  int values_per_mode() const { return real_ ? 1 : 2; }
  std::size_t band_values() const override { return std::size_t(values_per_mode()) * modes_ * nz_; }
  ModeBand band() const override { return ModeBand::flat(columns_, m0_, modes_, nz_); }
  // f's interior (this rank's block; ghosts not read) -> the band's spectrum (as the plane
  // transform gives it); the staging arrays are not used. Collective.
  void forward(const Field<R>& f, R* band, R* = nullptr, R* = nullptr) override;
  // The band's spectrum (destroyed) -> f's interior (ghosts not written). Collective.
  void inverse(R* band, Field<R>& f, R* = nullptr, R* = nullptr) override;
  // The transposes both ways and the slab's plane transforms.
  double values_both_ways(const std::function<double(double, double)>& plane_transforms) const override;
  // This rank's slab's z levels (0: none).
  int levels() const { return levels_; }
  // Bytes moved through memory by the transposes of one direction, counted as the traffic
  // model counts a pass (each transpose's packing read and write, unpacking read and write;
  // not the plane transform's own).
  double transpose_bytes() const;
  // This rank's slab: its z levels of whole planes (none where it holds no level).
  static Layout slab_layout(const Grid& part);
  // This rank's band's modes of a plane of `columns` modes a row.
  static int band_modes(const Grid& part, int columns);
  // Bytes this rank allocates on the backend (slab, slab spectrum; the transposes' messages
  // in the backend's shared buffers; not the plane transforms' own arrays and work area).
  static double estimate_memory(const Grid& part, std::size_t value_bytes, bool real_spectrum);

 private:
  Backend backend_;
  Grid part_;
  int ranks_, rank_;
  int nx_, ny_, nz_;
  bool real_;                      // a real-to-real spectrum (nx ny a plane), else the half spectrum
  int columns_, plane_modes_;      // modes a row, and a plane
  int levels_ = 0;                 // this rank's slab's
  int m0_ = 0, modes_ = 0;         // this rank's band
  std::vector<int> zcut_, mcut_;   // the slabs' first levels and the bands' first modes (ranks + 1 each)
  std::vector<Box> blocks_;        // every rank's block in the whole grid's x-y indices, all z
  Field<R> slab_;                  // this rank's slab: nx x ny x (its levels)
  R* slab_spectrum_ = nullptr;
  std::unique_ptr<PlaneFft<R>> fft_;
  std::unique_ptr<PlaneR2R<R>> r2r_;
};

}  // namespace bouss
