// Whole-field operation checks on any backend.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

}  // namespace bouss::test
