// A field of a grid cut over ranks, gathered onto one rank as the whole grid's interior and
// scattered back: the pressure solve done whole on one rank (solver/gathered_solver.hpp:
// fields, packed on the device), checkpoints and the tests that compare a decomposed run
// with one rank (host values as doubles, exact for float fields). A face field's duplicate
// face n on a cut axis is the next rank's face 0: each point of the whole grid comes from
// exactly one rank.
#pragma once

#include <array>
#include <vector>

#include "grid/box.hpp"
#include "grid/field.hpp"
#include "grid/grid.hpp"

namespace bouss {

// The points of the whole grid's interior that this rank's block supplies, in its own
// indices (every interior point, less face n along a cut axis unless the block is last).
Box supplied_box(const Grid& part, Stagger s);
// Those of rank p of the decomposition d, in the whole grid's indices.
Box supplied_box_of_rank(const Decomposition& d, int p, Stagger s);
// This rank's, in the whole grid's indices (the whole interior on one rank): its share of
// a partition of the points among the ranks (what it writes of a checkpoint array).
Box supplied_box_in_whole(const Grid& part, Stagger s);

// The values of supplied_box(part, s) out of the block's interior values (x fastest).
std::vector<double> supplied_values(const std::vector<double>& values, Stagger s, const Grid& part);
// Every rank's supplied points of its block's interior values (on the host, x fastest, as
// interior_values and Simulation::host_values order them) gathered onto rank root as the
// whole grid's interior; empty on the other ranks. Collective.
std::vector<double> gather_interior(const std::vector<double>& values, Stagger s, const Grid& part,
                                    const Communicator& ranks, int root = 0);
// The same for fields, in their precision and without host arrays of the whole: each rank
// packs its supplied points on its backend, rank root gathers them and unpacks each rank's
// into `whole` (the whole grid's layout, on root's backend; null elsewhere). Collective.
template <class S>
void gather_field(const Field<S>& f, const Grid& part, Field<S>* whole, int root = 0);
// And back: root packs each rank's block (its interior, face n of a cut axis included) from
// `whole` and sends it; every rank unpacks its own into f's interior. Collective.
template <class S>
void scatter_field(const Field<S>* whole, Field<S>& f, const Grid& part, int root = 0);

// A box of points (the whole grid's indices) cut over the ranks: rank p holds the points
// intersect(box, supplied_box_of_rank(d, p, s)), x fastest, `elem` bytes each; `pieces` the
// ranks' pieces one after the other in rank order (a gatherv's), placed into `out`, the box's
// values (x fastest, box.cells() * elem bytes). An output record's slab and a time average's
// sums are gathered so.
void place_pieces(const char* pieces, std::size_t elem, const Box& box, const Decomposition& d, int ranks, Stagger s,
                  char* out);
// The values of `part` (a box inside `box`) out of the box's values, x fastest.
std::vector<double> part_of_box(const std::vector<double>& values, const Box& box, const Box& part);

// This rank's block of the whole grid's interior values (its interior, face n of a cut
// axis included), without communication: every rank holds the whole (a checkpoint read).
std::vector<double> block_of_whole(const std::vector<double>& whole, Stagger s, const Grid& part);
// The points of that block in the whole grid's indices (a checkpoint read by block).
Box block_box(const Grid& part, Stagger s);

}  // namespace bouss
