// The direct solve's horizontal transforms on a grid cut over ranks, as the solve sees them
// (solver/direct/fourier_solver.hpp): forward takes this rank's block to its band of the
// spectrum, every z level of some horizontal modes (ModeBand: where each mode's line lies),
// inverse takes the band back. Two ways to get there: z slabs of whole planes and bands of
// modes, two all-to-alls each way (slab_transform.hpp: every box, every process grid), and,
// where the ranks cut y alone, x transforms on the blocks and y transforms on bands of x
// modes, one all-to-all each way (pencil_transform.hpp: every box).
#pragma once

#include <cstddef>
#include <functional>

#include "grid/field.hpp"
#include "solver/direct/mode_band.hpp"

namespace bouss {

template <class R>
class TransposedPlanes {
 public:
  virtual ~TransposedPlanes() = default;
  // The values of R in this rank's band (values_per_mode() each a mode and level).
  virtual std::size_t band_values() const = 0;
  virtual ModeBand band() const = 0;
  // f's interior -> the band (ghosts not read); staging: two arrays the caller lends, each
  // of at least a padded block's values (the slab transforms use none). Collective.
  virtual void forward(const Field<R>& f, R* band, R* staging_a, R* staging_b) = 0;
  // The band (destroyed) -> f's interior (ghosts not written). Collective.
  virtual void inverse(R* band, Field<R>& f, R* staging_a, R* staging_b) = 0;
  // Values of R moved through memory by both directions (the transposes' packing and
  // unpacking, and the transforms); `plane_transforms(planes, half)` counts one rank's plane
  // transforms both ways over that many real values and half-spectrum values.
  virtual double values_both_ways(const std::function<double(double, double)>& plane_transforms) const = 0;
};

}  // namespace bouss
