#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "grid/field.hpp"
#include "grid/layout.hpp"

using namespace bouss;

namespace {
const Stagger all_staggers[] = {Stagger::centre, Stagger::face_x, Stagger::face_y, Stagger::face_z};
const std::array<int, 3> shapes[] = {{1, 1, 1}, {5, 3, 2}, {16, 8, 16}, {33, 17, 9}, {256, 4, 3}};
}  // namespace

TEST(Layout, InteriorRowsStartOn128ByteBoundariesForEveryStaggering) {
  for (const auto& n : shapes) {
    const Layout L = Layout::make(n, 1, sizeof(double));
    Field<double> f(Backend::cpu(), L, Stagger::centre, "f");
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(f.data()) % 256, 0u) << "allocations are 256-byte aligned";
    for (Stagger s : all_staggers)
      for (int k = 0; k < L.points(s, 2); ++k)
        for (int j = 0; j < L.points(s, 1); ++j) {
          const auto addr = reinterpret_cast<std::uintptr_t>(&f.view()(0, j, k));
          EXPECT_EQ(addr % row_alignment_bytes, 0u) << "n=" << n[0] << "," << n[1] << "," << n[2] << " j=" << j
                                                   << " k=" << k << " " << stagger_name(s);
        }
  }
}

TEST(Layout, EveryStaggeringWithGhostsFitsOneCongruentAllocation) {
  for (int ghost : {1, 2})
    for (const auto& n : shapes) {
      const Layout L = Layout::make(n, ghost, sizeof(double));
      for (Stagger s : all_staggers) {
        const Box b = L.padded(s);
        std::set<std::ptrdiff_t> seen;
        for (int k = b.lo[2]; k < b.hi[2]; ++k)
          for (int j = b.lo[1]; j < b.hi[1]; ++j)
            for (int i = b.lo[0]; i < b.hi[0]; ++i) {
              const std::ptrdiff_t off = L.origin + L.index(i, j, k);
              ASSERT_GE(off, 0);
              ASSERT_LT(off, L.size);
              ASSERT_TRUE(seen.insert(off).second) << "two points share offset " << off;
            }
        EXPECT_EQ(long(seen.size()), b.cells());
      }
    }
}

TEST(Layout, OneIndexAddressesTheSamePointOfCentreAndFaceArrays) {
  const Layout L = Layout::make({12, 7, 5}, 1, sizeof(double));
  Field<double> T(Backend::cpu(), L, Stagger::centre, "T"), u(Backend::cpu(), L, Stagger::face_x, "u");
  auto tv = T.view();
  auto uv = u.view();
  // u(i) is the low x-face of cell i: the same offset, its own array.
  EXPECT_EQ(&tv(3, 2, 1) - tv.origin, &uv(3, 2, 1) - uv.origin);
  EXPECT_EQ(&uv(4, 2, 1) - &uv(3, 2, 1), 1);
  EXPECT_EQ(&tv(3, 3, 1) - &tv(3, 2, 1), L.sy);
  EXPECT_EQ(&tv(3, 2, 2) - &tv(3, 2, 1), L.sz);
  EXPECT_EQ(L.sy % (row_alignment_bytes / sizeof(double)), 0);
  EXPECT_EQ(L.points(Stagger::face_x, 0), 13);
  EXPECT_EQ(L.points(Stagger::face_x, 1), 7);
  EXPECT_EQ(L.points(Stagger::face_z, 2), 6);
}

TEST(Layout, FloatRowsAlignToo) {
  const Layout L = Layout::make({10, 3, 3}, 1, sizeof(float));
  EXPECT_EQ((L.origin * sizeof(float)) % row_alignment_bytes, 0u);
  EXPECT_EQ((L.sy * sizeof(float)) % row_alignment_bytes, 0u);
}
