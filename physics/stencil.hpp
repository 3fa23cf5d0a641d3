// The strides and inverse spacings the pointwise operators take, for one grid.
#pragma once

#include "grid/grid.hpp"
#include "physics/operators_kernels.hpp"

namespace bouss {

// In the fields' precision R: the inverse spacings computed in double, rounded once.
template <class R>
inline Stencil<R> make_stencil(const Grid& g) {
  Stencil<R> st{};
  for (int a = 0; a < 3; ++a) {
    st.s[a] = g.layout.stride(a);
    st.rd[a] = R(1 / g.h[a]);
    st.rd2[a] = R(1 / (g.h[a] * g.h[a]));
  }
  return st;
}

}  // namespace bouss
