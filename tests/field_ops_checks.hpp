// Whole-field operation checks on any backend.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "grid/async_value.hpp"
#include "grid/field_ops.hpp"
#include "test_support.hpp"

namespace bouss::test {

// remove_mean_max_abs leaves a mean-free field and returns exactly the max |f| that a
// second pass over it finds, in double and in float, for fields of either sign balance.
template <class S>
void check_remove_mean_max_abs_for(const Backend& be) {
  const Grid g = Grid::make({9, 7, 6}, {0, 0, 0}, {1, 1, 1});
  const Layout L = Layout::make(g.layout.n, g.layout.ghost, sizeof(S));
  std::mt19937_64 rng(5);
  for (double offset : {0.0, 3.0, -7.5}) {
    std::uniform_real_distribution<double> U(-1 + offset, 1 + offset * offset);
    std::vector<S> host(L.size, S(0));
    for (int k = 0; k < L.n[2]; ++k)
      for (int j = 0; j < L.n[1]; ++j)
        for (int i = 0; i < L.n[0]; ++i) host[L.origin + L.index(i, j, k)] = S(U(rng));
    Field<S> f(be, L, Stagger::centre, "f");
    f.from_host(host);
    const double norm = remove_mean_max_abs(f);
    const Box box = L.interior(Stagger::centre);
    EXPECT_EQ(norm, max_abs(f, box)) << "offset " << offset << ", " << sizeof(S) << "-byte values";
    EXPECT_LT(std::fabs(sum(f, box)) / double(box.cells()), (sizeof(S) == 4 ? 1e-6 : 1e-14) * (1 + offset * offset));
  }
}

// The CPU's sums come out the same whatever the number of OpenMP threads (fixed blocks
// combined in a fixed order), so that a run restarted on another machine continues bit
// for bit; fields of either precision S.
template <class S>
void check_sum_independent_of_threads() {
  const Layout L = Layout::make({40, 37, 33}, 1, sizeof(S));
  std::vector<S> host(L.size, S(0));
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> U(-1, 1);
  for (auto& x : host) x = S(U(rng) * std::exp(8 * U(rng)));  // values of many magnitudes: order matters
  Field<S> f(Backend::cpu(), L, Stagger::centre, "f");
  f.from_host(host);
  const Box box = L.interior(Stagger::centre);
  ASSERT_GE(box.cells(), 32768) << "large enough for the parallel path";
  std::vector<double> sums;
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
  for (int t : {1, 2, 3, 7}) {
    omp_set_num_threads(t);
    sums.push_back(sum(f, box));
  }
  omp_set_num_threads(threads);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
  for (double s : sums) EXPECT_EQ(s, sums.front()) << "thread counts 1, 2, 3, 7, " << sizeof(S) << "-byte values";
}

// A NaN in one cell makes every reduction over the field NaN: max (the max reduction must
// not drop it), sum, and the fused mean removal; reduce_into leaves the same value in the
// backend's memory for the host to read later; fields of either precision S.
template <class S>
void check_reductions_see_nan(const Backend& be) {
  const Layout L = Layout::make({12, 10, 9}, 1, sizeof(S));
  const Box box = L.interior(Stagger::centre);
  for (int where : {0, 517, int(box.cells()) - 1}) {
    std::vector<S> host(L.size, S(0));
    std::mt19937_64 rng(where);
    std::uniform_real_distribution<double> U(-1, 1);
    int n = 0;
    for (int k = 0; k < L.n[2]; ++k)
      for (int j = 0; j < L.n[1]; ++j)
        for (int i = 0; i < L.n[0]; ++i, ++n)
          host[L.origin + L.index(i, j, k)] = n == where ? S(std::nan("")) : S(U(rng));
    Field<S> f(be, L, Stagger::centre, "f");
    f.from_host(host);
    EXPECT_TRUE(std::isnan(max_abs(f, box))) << "max over a NaN at cell " << where << ", " << sizeof(S) << "-byte values";
    EXPECT_TRUE(std::isnan(sum(f, box))) << "sum over a NaN at cell " << where << ", " << sizeof(S) << "-byte values";
    EXPECT_TRUE(std::isnan(remove_mean_max_abs(f))) << "mean removal over a NaN at cell " << where << ", " << sizeof(S)
                                                    << "-byte values";
  }
  // A finite field: reduce_into's value, read later on the host, is reduce's.
  Field<S> g(be, L, Stagger::centre, "g");
  fill(g, 0.25);
  AsyncValue<double> later(be);
  sum_into(g, box, later.target());
  later.publish();
  EXPECT_EQ(later.get(), sum(g, box));
  EXPECT_EQ(later.get(), 0.25 * double(box.cells()));
}

// sum_levels_into (grid/reduce.hpp reduce_levels_into) leaves the sum of each z-level of a
// box in the backend's memory, at the level's place counted from the box's lowest level: on
// the CPU exactly what sum() gives over that level alone (levels large enough for the
// parallel path), elsewhere to round-off. Levels with no points sum to 0.
template <class S>
void check_level_sums_for(const Backend& be, bool exact) {
  const Layout L = Layout::make({190, 180, 5}, 1, sizeof(S));
  std::vector<S> host(L.size);
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> U(-1, 1);
  for (auto& x : host) x = S(U(rng) * std::exp(6 * U(rng)));  // many magnitudes: order matters
  Field<S> f(be, L, Stagger::face_z, "f");
  f.from_host(host);
  const Box box{{1, 0, 1}, {L.n[0], L.n[1] + 1, L.n[2] + 1}};  // levels 1..n (the top face), rows 0..n
  ASSERT_GE(long(box.extent(0)) * box.extent(1), 32768) << "each level large enough for the parallel path";
  const int levels = box.extent(2);
  double* out = static_cast<double*>(be.allocate(levels * sizeof(double)));
  sum_levels_into(f, box, out);
  std::vector<double> got(levels);
  copy_bytes(got.data(), Backend::cpu(), out, be, levels * sizeof(double));
  for (int k = box.lo[2]; k < box.hi[2]; ++k) {
    Box level = box;
    level.lo[2] = k;
    level.hi[2] = k + 1;
    const double expected = sum(f, level);
    if (exact) {
      EXPECT_EQ(got[k - box.lo[2]], expected) << "level " << k << ", " << sizeof(S) << "-byte values";
      continue;
    }
    double magnitude = 0;  // the sum of |f|: what the round-off of any order is relative to
    for (int j = level.lo[1]; j < level.hi[1]; ++j)
      for (int i = level.lo[0]; i < level.hi[0]; ++i) magnitude += std::fabs(double(host[L.origin + L.index(i, j, k)]));
    EXPECT_NEAR(got[k - box.lo[2]], expected, 1e-14 * magnitude) << "level " << k << ", " << sizeof(S) << "-byte values";
  }
  Box no_rows = box;
  no_rows.hi[1] = no_rows.lo[1];
  sum_levels_into(f, no_rows, out);
  copy_bytes(got.data(), Backend::cpu(), out, be, levels * sizeof(double));
  for (int k = 0; k < levels; ++k) EXPECT_EQ(got[k], 0.0) << "empty level " << k;
  be.deallocate(out);
}

inline void check_level_sums(const Backend& be, bool exact) {
  check_level_sums_for<double>(be, exact);
  check_level_sums_for<float>(be, exact);
}

// box_values gives a box's values (ghost levels included) as the padded array holds them,
// x fastest, with `add` of each level added in double, and set_box_values puts values into
// the box alone (every other point, ghosts included, as it was); on a GPU through slabs of
// planes, so a box of more than one slab (box_values_slab_bytes) crosses their seams.
template <class S>
void check_box_values_for(const Backend& be, const std::array<int, 3>& n) {
  const Layout L = Layout::make(n, 1, sizeof(S));
  std::vector<S> host(L.size);
  for (std::size_t p = 0; p < host.size(); ++p) host[p] = S(double(p));  // exact below 2^24 in float
  ASSERT_LT(double(host.size()), 16777216.0);
  Field<S> f(be, L, Stagger::face_z, "f");
  f.from_host(host);
  const Box box{{1, 2, -1}, {n[0] - 1, n[1], n[2] + 2}};  // z faces: n + 1 interior points and a ghost level each side
  const LevelLine add{0.5, 0.25, nullptr};
  const std::vector<double> got = box_values(f, box, add);
  ASSERT_EQ(got.size(), std::size_t(box.cells()));
  std::size_t q = 0, wrong = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i, ++q)
        wrong += got[q] != double(host[std::size_t(L.origin + L.index(i, j, k))]) + add(k);
  EXPECT_EQ(wrong, 0u) << "values of the box, " << sizeof(S) << "-byte field";
  std::vector<double> put(got.size());
  for (std::size_t p = 0; p < put.size(); ++p) put[p] = -double(p) - 1;
  set_box_values(f, box, put);
  const std::vector<S> after = f.to_host();
  std::vector<S> expect = host;
  q = 0;
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) expect[std::size_t(L.origin + L.index(i, j, k))] = S(put[q++]);
  wrong = 0;
  for (std::size_t p = 0; p < after.size(); ++p) wrong += after[p] != expect[p];
  EXPECT_EQ(wrong, 0u) << "points after set_box_values (the box's new values, the others as they were)";
  EXPECT_THROW(set_box_values(f, box, std::vector<double>(put.size() - 1)), std::invalid_argument);
}

}  // namespace bouss::test
