// The horizontal transforms of the direct solve on a grid whose ranks cut y alone (a process
// grid of 1 x P: blocks of whole x rows), with one all-to-all each way instead of the slab
// transform's two (solver/direct/slab_transform.hpp):
//   forward: the block's x lines transformed where they lie; one all-to-all sends each rank
//     its columns of x modes (even cuts of the columns, rank 0 holding column 0) from every
//     block, so each rank holds whole y lines and whole z lines of its columns; there its y
//     lines are transformed;
//   inverse: retraces it.
// A periodic box's spectrum is complex: x lines real to half spectrum (nx/2 + 1 columns of
// complex values: solver/direct/line_fft.hpp), y lines complex to complex; the plane FFT's
// spectrum, unnormalized (the round trip is nx ny). A box with a walled or stretched
// horizontal axis has a real one: each axis's real-to-real line transform
// (solver/direct/line_r2r.hpp: the halfcomplex DFT, the cosine transform or the eigenbasis;
// nx columns of real values), the plane transforms' real-to-real spectrum (PlaneCosine's,
// PlaneEigen's), Makhoul's reorder of a walled axis made by the copies into the x lines and
// into the band.
// The band is ordered (column, z, y): the y transforms run along its slowest axis, one batch
// of every column and level; the mode solves read a column's z line `width` values apart
// (ModeBand::column_range).
// Both sides go in pieces of z levels: with NCCL each piece's all-to-all travels on the
// backend's message stream while the next piece's x lines are transformed and packed and the
// pieces arrived before have their y lines transformed (forward), or while the next piece's
// y lines are transformed back and packed and the pieces arrived before have their x lines
// transformed back (inverse). The same band and field for any number of pieces, bit for bit.
#pragma once

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "grid/field.hpp"
#include "grid/grid.hpp"
#include "solver/direct/axis_eigenbasis.hpp"
#include "solver/direct/line_fft.hpp"
#include "solver/direct/line_r2r.hpp"
#include "solver/direct/transposed_planes.hpp"

namespace bouss {

template <class R>
class PencilTransform final : public TransposedPlanes<R> {
 public:
  // Whether it takes the blocks of `part`'s grid: a grid cut over more than one rank, along
  // y alone, with at least as many x mode columns as ranks (real_spectrum: a walled or
  // stretched box's nx columns; else a periodic box's nx/2 + 1).
  static bool takes(const Grid& part, bool real_spectrum = false);
  // Whether a grid of n cells cut along y alone over `ranks` ranks could be: more than one
  // rank, no more than y's rows and x's mode columns (the direct solve's wish for its process
  // grid, solver/direct/fourier_type.cpp, asks it before any grid is cut).
  static bool fits(const std::array<int, 3>& n, int ranks, bool real_spectrum = false);
  // pieces: of the x side (at most nz; default_pieces is the solve's). kinds: x's and y's
  // transforms; bases: their eigenbases where the axes go through them (both), else null.
  // A periodic box without bases has the complex spectrum, any other the real one.
  PencilTransform(const Backend& backend, const Grid& part, int pieces,
                  const std::array<AxisTransform, 2>& kinds = {AxisTransform::periodic, AxisTransform::periodic},
                  const std::array<AxisEigenbasis, 2>* bases = nullptr);
  PencilTransform(const PencilTransform&) = delete;
  PencilTransform& operator=(const PencilTransform&) = delete;

  std::size_t band_values() const override { return std::size_t(vc_) * width_ * ny_ * nz_; }
  ModeBand band() const override { return ModeBand::column_range(columns_, k0_, width_, ny_, nz_); }
  // staging_a: the block's x lines (nx nyb nz values: a real spectrum's there too);
  // staging_b: their half spectrum (a complex spectrum's) or the x transforms' work, then the
  // y transforms' work.
  void forward(const Field<R>& f, R* band, R* staging_a, R* staging_b) override;
  void inverse(R* band, Field<R>& f, R* staging_a, R* staging_b) override;
  double values_both_ways(const std::function<double(double, double)>& plane_transforms) const override;

  // The pieces of the x side the direct solve takes: up to 4, each sending at least 4 MiB to
  // each rank. Measured on four H200s (docs/scaling.md): 4 pieces against 1 take the step at
  // 1024x1024x512 from 27.1 to 23.5 ms; 8 pieces gain 0.7% there and lose 7% at 512x512x256.
  static int default_pieces(const Grid& part, std::size_t value_bytes, bool real_spectrum = false);
  // The z levels of each of `pieces` pieces (pieces + 1 values: the first of each, and nz).
  static std::vector<int> piece_cuts(const Grid& part, int pieces);
  // The x lines' transform of a piece of `levels` levels, and this rank's y lines' of one: a
  // complex spectrum's line FFTs, a real one's real-to-real lines.
  static LineShape x_lines(const Grid& part, int levels);
  static LineShape y_lines(const Grid& part, int levels);
  static R2RLines x_r2r_lines(const Grid& part, int levels);
  static R2RLines y_r2r_lines(const Grid& part, int levels);
  // Bytes of the backend's memory its line transforms take (their work areas; a real
  // spectrum's twiddles or eigenbases' matrices too) in `pieces` pieces: one per size of piece,
  // and the y lines' where the band holds columns (the memory estimate's).
  static double line_work_bytes(const Backend& backend, const Grid& part, int pieces, bool real_spectrum, bool bases);
  // This rank's band's x mode columns.
  static int band_columns(const Grid& part, bool real_spectrum = false);
  // Bytes this rank allocates on the backend: the transposes' messages in the backend's
  // shared buffers (the band, the staging arrays and the line transforms' work areas are
  // not counted).
  static double estimate_memory(const Grid& part, std::size_t value_bytes, bool real_spectrum = false);

 private:
  Backend backend_;
  Grid part_;
  int ranks_, rank_;
  int nx_, ny_, nz_, rows_;       // the whole grid's cells; this block's y rows
  bool real_ = false;              // the real-to-real spectrum (a walled or stretched box)
  bool basis_ = false;             // x and y through their eigenbases
  int vc_ = 2;                    // values a column holds at one row and level: 2 complex, 1 real
  int columns_;                   // x mode columns: nx/2 + 1 (complex), nx (real)
  int xw_ = 0;                    // values of staging_b an x line takes (its half spectrum, or the r2r work)
  int k0_ = 0, width_ = 0;        // this rank's band's columns
  std::vector<int> kcut_;         // every band's first column (ranks + 1)
  std::vector<int> y0_, ny_of_;   // every block's first row and rows
  std::vector<int> zcut_;          // the pieces' first levels (piece_cuts)
  // The x lines' and the y lines' transforms of a piece by its levels (lines_[0], lines_[1]):
  // the FFTs of a complex spectrum, the real-to-real lines of a real one.
  struct Lines {
    int levels;
    std::unique_ptr<LineFft<R>> fft;
    std::unique_ptr<LineR2R<R>> r2r;
  };
  std::array<std::vector<Lines>, 2> lines_;
  std::array<AxisTransform, 2> kinds_;
  bool reorder_x_ = false, reorder_y_ = false;  // Makhoul's order, made by the copies
  std::size_t y_work_ = 0;  // values of staging_b a level's y lines' real-to-real work takes
  void make_lines(int axis, int levels, const std::array<AxisEigenbasis, 2>* bases);
  Lines& lines_of(int axis, int levels);
  // Per piece: its x side packed (the step's stream), its messages arrived (the message stream).
  std::unique_ptr<StreamEvent[]> packed_, arrived_;
  // Each piece's messages: bytes to and from every rank, and where its sends and receipts
  // start in the backend's buffers (values of R); forward: the x spectra's columns out.
  struct Piece {
    int z0, z1;
    std::vector<std::size_t> out, in;
    std::size_t send_at, receive_at;
  };
  // Every piece of one direction, and the bytes all of them send and receive (the buffers').
  struct Pieces {
    std::vector<Piece> each;
    std::size_t sends = 0, receipts = 0;
  };
  Pieces forward_, inverse_;  // made once, with the cuts
  Pieces message_pieces(bool forward) const;
  // Piece c's messages sent on the message stream once the backend's stream has packed them.
  void post(std::size_t c, const Piece& m, const R* send, R* receive);
};

}  // namespace bouss
