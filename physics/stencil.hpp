// The strides and inverse spacings the pointwise operators take, for one grid.
#pragma once

#include "grid/grid.hpp"
#include "physics/operators_kernels.hpp"

namespace bouss {

inline Stencil make_stencil(const Grid& g) {
  Stencil st{};
  for (int a = 0; a < 3; ++a) {
    st.s[a] = g.layout.stride(a);
    st.rd[a] = 1 / g.h[a];
    st.rd2[a] = 1 / (g.h[a] * g.h[a]);
  }
  return st;
}

}  // namespace bouss
