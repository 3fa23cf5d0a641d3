// Halo exchange: the ghost layers of fields along one axis, from the ranks across the
// faces that FieldBC::exchange_with names. The fields go together, one message each way
// per neighbour: each rank packs its interior layers next to the face, sends them to the
// neighbour and unpacks what comes back into its ghosts; both directions of the axis are
// packed in one launch, sent as one group of messages and unpacked in one launch. A face
// field sends its face 0 too, which is the lower neighbour's duplicate face n. On CUDA the
// messages go by NCCL, a CUDA-aware MPI or through page-locked host buffers
// (grid/device_messages.hpp).
#pragma once

#include "grid/boundary.hpp"
#include "grid/field.hpp"

namespace bouss {

// Called by fill_ghosts after its own fill of axis `axis`, on every rank.
template <class S>
void exchange_halos(Field<S>* const fields[], const FieldBC* const bcs[], int count, int axis);

// The ghosts of f across every cut face, both cut axes in one group of messages, nothing
// else: no wall or periodic fill, and the edges where two cut axes meet take the
// neighbour's edge ghosts as they were (each axis's slab goes as it is, not after the
// other's exchange). What a sweep that reads only its face neighbours needs before each
// colour (solver/multigrid/hierarchy.hpp smooth); fill_ghosts fills every ghost. Collective
// over the ranks of f's backend.
// `corners`: where both x and y are cut, the face ghosts (every layer) beside the block's
// interior alone, and the first layer's edge cells (a column along z at each of the four
// edges) from the rank across the edge (FieldBC::corner_with), in the same group: what a
// sweep that also relaxes the first ghost layer reads (the multigrid's two-layer sweeps).
template <class S>
void exchange_cut_faces(Field<S>& f, const FieldBC& bc, bool corners = false);

}  // namespace bouss
