// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "solver/volume_mean.hpp"

#include "grid/for_each.hpp"
#include "grid/reduce.hpp"
#include "grid/stencil.hpp"

namespace bouss {

template <class R>
void remove_volume_mean(const Grid& g, Field<R>& f) {
  const ZView<double> z = g.z_view<double>(f.backend());
  const AreaWeights area = area_weights(g, f.backend());  // 1 on uniform x and y
  const View<R> v = f.view();
  const std::ptrdiff_t sy = g.layout.sy, sz = g.layout.sz;
  const double sum = reduce(f.backend(), g.layout.interior(Stagger::centre), 0.0, SumOp{},
                            [=] BOUSS_HD(int i, int j, int k) {
                              return double(v[i + j * sy + k * sz]) * (z.zf[k + 1] - z.zf[k]) * area(i, j);
                            }, "volume mean");
  const R mean = R(sum / (double(g.global_n()[0]) * g.global_n()[1] * g.length(2)));
  for_each(f.backend(), g.layout.interior(Stagger::centre), [=] BOUSS_HD(int i, int j, int k) {
    v[i + j * sy + k * sz] -= mean;
  }, "remove volume mean");
}


template void remove_volume_mean<double>(const Grid&, Field<double>&);
template void remove_volume_mean<float>(const Grid&, Field<float>&);

}  // namespace bouss
