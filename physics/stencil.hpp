// The strides, inverse spacings and z tables the pointwise operators take, for one grid.
#pragma once

#include "grid/backend.hpp"
#include "grid/grid.hpp"
#include "physics/operators_kernels.hpp"

namespace bouss {

// In the fields' precision R: the inverse spacings computed in double, rounded once; the
// z tables on `backend`, where the kernels run.
template <class R>
inline Stencil<R> make_stencil(const Grid& g, const Backend& backend) {
  Stencil<R> st{};
  for (int a = 0; a < 3; ++a) st.s[a] = g.layout.stride(a);
  for (int a = 0; a < 2; ++a) {
    st.rd[a] = R(1 / g.h[a]);
    st.rd2[a] = R(1 / (g.h[a] * g.h[a]));
  }
  st.z = g.z_view<R>(backend);
  return st;
}

}  // namespace bouss
