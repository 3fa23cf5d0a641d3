// The volume mean of a cell-centred field, removed: the compatibility condition of a singular
// pressure problem on a stretched z (each cell weighted by its thickness; on a uniform grid
// the plain mean). Shared by the line solvers (solver/multigrid/line_multigrid.hpp, solver/line/line_pcg.hpp).
#pragma once

#include "grid/field.hpp"
#include "grid/grid.hpp"

namespace bouss {

// f -= its volume mean over the interior (ghosts untouched).
template <class R>
void remove_volume_mean(const Grid& g, Field<R>& f);

}  // namespace bouss
