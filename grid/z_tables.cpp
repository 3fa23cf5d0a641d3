#include "grid/z_tables.hpp"

#include <cstring>

#include "grid/grid.hpp"

namespace bouss {

ZTables::ZTables(const Grid& g, const Backend& backend, int axis) : backend_(backend), axis_(axis) {
  const int a = axis, nz = g.layout.n[a], gh = g.layout.ghost;
  const int levels = nz + 2 * gh + 1;  // k = -g .. n_z + g (z_table_bytes counts them)
  // Layout of one host block: double rdz, rdzc, upper, zc, zf; then float rdz, rdzc, upper.
  std::vector<double> d(5 * std::size_t(levels));
  std::vector<float> f(3 * std::size_t(levels));
  for (int k = -gh; k <= nz + gh; ++k) {
    const std::size_t i = std::size_t(k + gh);
    const double dz = g.width(a, k), dzc = g.centre_distance(a, k), below = g.width(a, k - 1);
    d[i] = 1 / dz;
    d[levels + i] = 1 / dzc;
    d[2 * levels + i] = g.stretched(a) ? below / (below + dz) : 0.5;
    d[3 * levels + i] = g.centre(a, k);
    d[4 * levels + i] = g.face(a, k);
    for (int t = 0; t < 3; ++t) f[t * levels + i] = float(d[t * levels + i]);
  }
  const std::size_t dbytes = d.size() * sizeof(double), fbytes = f.size() * sizeof(float);
  std::vector<unsigned char> host(dbytes + fbytes);
  std::memcpy(host.data(), d.data(), dbytes);
  std::memcpy(host.data() + dbytes, f.data(), fbytes);
  data_ = backend_.allocate(host.size());
  copy_bytes(data_, backend_, host.data(), Backend::cpu(), host.size());
  const double* dd = static_cast<const double*>(data_) + gh;  // index 0 is level 0
  const float* ff = reinterpret_cast<const float*>(static_cast<const unsigned char*>(data_) + dbytes) + gh;
  d_ = {{dd}, {dd + levels}, {dd + 2 * levels}, {dd + 3 * levels}, {dd + 4 * levels}};
  f_ = {{ff}, {ff + levels}, {ff + 2 * levels}, {dd + 3 * levels}, {dd + 4 * levels}};
}

ZTables::~ZTables() {
  if (data_) backend_.deallocate(data_);
}

template <>
ZView<double> ZTables::view<double>() const {
  return d_;
}
template <>
ZView<float> ZTables::view<float>() const {
  return f_;
}

}  // namespace bouss
