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
    const Real norm = remove_mean_max_abs(f);
    const Box box = L.interior(Stagger::centre);
    EXPECT_EQ(norm, max_abs(f, box)) << "offset " << offset << ", " << sizeof(S) << "-byte values";
    EXPECT_LT(std::fabs(sum(f, box)) / double(box.cells()), (sizeof(S) == 4 ? 1e-6 : 1e-14) * (1 + offset * offset));
  }
}

inline void check_remove_mean_max_abs(const Backend& be) {
  check_remove_mean_max_abs_for<double>(be);
  check_remove_mean_max_abs_for<float>(be);
}

// The CPU's sums come out the same whatever the number of OpenMP threads (fixed blocks
// combined in a fixed order), so that a run restarted on another machine continues bit
// for bit.
inline void check_sum_independent_of_threads() {
  const Layout L = Layout::make({40, 37, 33}, 1, sizeof(double));
  std::vector<double> host(L.size, 0.0);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> U(-1, 1);
  for (auto& x : host) x = U(rng) * std::exp(8 * U(rng));  // values of many magnitudes: order matters
  Field<double> f(Backend::cpu(), L, Stagger::centre, "f");
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
  for (double s : sums) EXPECT_EQ(s, sums.front()) << "thread counts 1, 2, 3, 7";
}

// A NaN in one cell makes every reduction over the field NaN: max (the max reduction must
// not drop it), sum, and the fused mean removal; reduce_into leaves the same value in the
// backend's memory for the host to read later.
inline void check_reductions_see_nan(const Backend& be) {
  const Layout L = Layout::make({12, 10, 9}, 1, sizeof(double));
  const Box box = L.interior(Stagger::centre);
  for (int where : {0, 517, int(box.cells()) - 1}) {
    std::vector<double> host(L.size, 0.0);
    std::mt19937_64 rng(where);
    std::uniform_real_distribution<double> U(-1, 1);
    int n = 0;
    for (int k = 0; k < L.n[2]; ++k)
      for (int j = 0; j < L.n[1]; ++j)
        for (int i = 0; i < L.n[0]; ++i, ++n)
          host[L.origin + L.index(i, j, k)] = n == where ? std::nan("") : U(rng);
    Field<double> f(be, L, Stagger::centre, "f");
    f.from_host(host);
    EXPECT_TRUE(std::isnan(max_abs(f, box))) << "max over a NaN at cell " << where;
    EXPECT_TRUE(std::isnan(sum(f, box))) << "sum over a NaN at cell " << where;
    EXPECT_TRUE(std::isnan(remove_mean_max_abs(f))) << "mean removal over a NaN at cell " << where;
  }
  // A finite field: reduce_into's value, read later on the host, is reduce's.
  Field<double> g(be, L, Stagger::centre, "g");
  fill(g, 0.25);
  AsyncValue<Real> later(be);
  sum_into(g, box, later.target());
  later.publish();
  EXPECT_EQ(later.get(), sum(g, box));
  EXPECT_EQ(later.get(), 0.25 * double(box.cells()));
}

}  // namespace bouss::test
