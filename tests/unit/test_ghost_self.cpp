// How a relaxation sweep sees a level's faces (solver/ghost_self.hpp): walls folded, even
// periodic axes wrapped, and faces cut between ranks read from their ghosts.
#include <gtest/gtest.h>

#include "solver/ghost_self.hpp"

namespace bouss {
namespace {

TEST(GhostSelf, WallsFoldPeriodicAxesWrapAndCutFacesReadTheirGhosts) {
  const Grid g = Grid::make({8, 8, 4}, {0, 0, 0}, {1, 1, 1});
  FieldBC bc;  // x periodic, y walls (gradient), z walls (value)
  bc.face[2] = bc.face[3] = {BoundaryKind::gradient, 0};
  bc.face[4] = bc.face[5] = {BoundaryKind::value, 0};
  const GhostSelf<double> whole = ghost_self<double>(bc, g);
  EXPECT_TRUE(whole.wrap[0]);
  EXPECT_EQ(whole.lo[1], 1);  // a gradient wall: the ghost is the cell itself
  EXPECT_EQ(whole.lo[2], -1);  // a value wall: the ghost mirrors the cell
  EXPECT_FALSE(sweeps_read_ghosts(whole));
  // Cut in x (periodic, both sides exchanged) and on the high y side (a wall of the domain).
  FieldBC cut = bc;
  cut.face[0].exchange_with = cut.face[1].exchange_with = 1;
  cut.face[3].exchange_with = 2;
  const GhostSelf<double> part = ghost_self<double>(cut, g);
  EXPECT_FALSE(part.wrap[0]);
  EXPECT_EQ(part.lo[0], 0);
  EXPECT_EQ(part.hi[0], 0);
  EXPECT_EQ(part.lo[1], 1);  // the domain's wall stays folded on the side that has it
  EXPECT_EQ(part.hi[1], 0);  // the cut side reads the neighbour's cells
  EXPECT_TRUE(sweeps_read_ghosts(part));
  // A block with a wall below and a neighbour above along y alone reads ghosts too: every
  // rank of a cut axis exchanges before each colour, or their exchanges would not pair up.
  FieldBC upper_cut = bc;
  upper_cut.face[3].exchange_with = 2;
  EXPECT_TRUE(sweeps_read_ghosts(ghost_self<double>(upper_cut, g)));
}

}  // namespace
}  // namespace bouss
