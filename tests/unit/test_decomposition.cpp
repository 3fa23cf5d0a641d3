// The cuts of a grid over ranks (grid/decomposition.hpp); the exchanges themselves are the
// MPI tests' (tests/mpi).
#include <gtest/gtest.h>

#include "grid/decomposition.hpp"

namespace bouss {
namespace {

TEST(Decomposition, CutsFallOnPowersOfTwoWithTheFirstPartsLarger) {
  EXPECT_EQ(Decomposition::cuts(96, 3), (std::vector<int>{0, 32, 64, 96}));
  EXPECT_EQ(Decomposition::cuts(64, 3), (std::vector<int>{0, 32, 48, 64}));
  EXPECT_EQ(Decomposition::cuts(256, 4), (std::vector<int>{0, 64, 128, 192, 256}));
  EXPECT_EQ(Decomposition::cuts(24, 2), (std::vector<int>{0, 16, 24}));
  EXPECT_EQ(Decomposition::cuts(24, 3), (std::vector<int>{0, 8, 16, 24}));
  EXPECT_EQ(Decomposition::cuts(7, 2), (std::vector<int>{0, 4, 7}));
  EXPECT_EQ(Decomposition::cuts(5, 1), (std::vector<int>{0, 5}));
  EXPECT_THROW(Decomposition::cuts(4, 5), std::invalid_argument);
}

// The fewest halo cells, a cell of a face cut along x (strided) counting 4: square grids are
// cut along y alone (256^2 on 4 ranks: 1x4 moves 2 x 256 row cells against 2x2's 2 x 128 x 4 +
// 2 x 128), a grid long in x is still cut along x (1024x64 on 8: 8x1's 2 x 64 x 4 against 4x2's
// 2 x 32 x 4 + 2 x 256; 1024x128 on 8: 8x1 and 4x2 tie, the squarer block wins).
TEST(Decomposition, TheProcessGridExchangesTheFewestHaloCells) {
  EXPECT_EQ(Decomposition::choose_dims({256, 256, 128}, 4), (std::array<int, 2>{1, 4}));
  EXPECT_EQ(Decomposition::choose_dims({256, 256, 128}, 2), (std::array<int, 2>{1, 2}));
  EXPECT_EQ(Decomposition::choose_dims({1024, 64, 64}, 8), (std::array<int, 2>{8, 1}));
  EXPECT_EQ(Decomposition::choose_dims({1024, 128, 64}, 8), (std::array<int, 2>{8, 1}));
  EXPECT_EQ(Decomposition::choose_dims({64, 1024, 64}, 8), (std::array<int, 2>{1, 8}));
  EXPECT_EQ(Decomposition::choose_dims({512, 512, 256}, 8), (std::array<int, 2>{1, 8}));
  EXPECT_EQ(Decomposition::choose_dims({96, 32, 16}, 3), (std::array<int, 2>{1, 3}));
  EXPECT_THROW(Decomposition::choose_dims({2, 2, 8}, 8), std::invalid_argument);
}

TEST(Decomposition, NeighboursWrapOnlyAcrossPeriodicAxes) {
  // 3 x 2 ranks over x periodic, y walled; rank 5 sits at (2, 1).
  const Decomposition d = Decomposition::make({96, 32, 8}, {true, false, false}, 6, 5, {3, 2});
  EXPECT_EQ(d.coords, (std::array<int, 2>{2, 1}));
  EXPECT_EQ(d.offset, (std::array<int, 3>{64, 16, 0}));
  EXPECT_EQ(d.n, (std::array<int, 3>{32, 16, 8}));
  EXPECT_EQ(d.neighbour, (std::array<int, 6>{4, 3, 2, -1, -1, -1}));
  EXPECT_TRUE(d.exchanges(0) && d.exchanges(1) && d.exchanges(2));
  EXPECT_FALSE(d.exchanges(3) || d.exchanges(4) || d.exchanges(5));
  // One rank: a periodic axis is its own neighbour and exchanges nothing.
  const Decomposition one = Decomposition::single({8, 8, 8}, {true, true, false});
  EXPECT_EQ(one.neighbour, (std::array<int, 6>{0, 0, 0, 0, -1, -1}));
  for (int f = 0; f < 6; ++f) EXPECT_FALSE(one.exchanges(f));
}

TEST(Decomposition, ProcessGridsAreParsedAndChecked) {
  EXPECT_EQ(Decomposition::parse_dims("4x2"), (std::array<int, 2>{4, 2}));
  for (const char* bad : {"4", "4x", "x2", "4x2x1", "0x2", "-1x2", "ax2", "4 x2"})
    EXPECT_THROW(Decomposition::parse_dims(bad), std::invalid_argument) << bad;
  EXPECT_THROW(Decomposition::make({16, 16, 8}, {true, true, false}, 4, 0, {3, 1}), std::invalid_argument);
  EXPECT_THROW(Decomposition::make({2, 16, 8}, {true, true, false}, 4, 0, {4, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace bouss
