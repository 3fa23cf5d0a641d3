// The geometry of a grid's axis as tables per index (z: per level k), resident where the
// kernels run (device memory on CUDA): the pointwise operators read the local spacing through
// them (physics/operators_kernels.hpp), so one kernel serves a uniform and a stretched axis.
// On a uniform axis every entry is the one spacing, exactly (Grid::width returns h[a]).
// z's tables serve the stretched-z kernels; x's and y's the kernels of a grid stretched
// horizontally (grid/stencil.hpp). Written for z below; along x and y read i or j for k.
//
// Indices are z levels, ghosts included: for a grid of n_z cells and g ghost layers,
//   rdz[k]   = 1 / dz(k)                   k = -g .. n_z + g - 1  (cell thickness)
//   rdzc[k]  = 1 / dz_centres(k)           k = -g + 1 .. n_z + g  (across z face k)
//   upper[k] = dz(k-1) / (dz(k-1) + dz(k)) k = -g + 1 .. n_z + g  (weight of cell k in the
//              value interpolated linearly to face k; the cell below gets 1 - upper[k])
//   zc[k], zf[k]: the absolute heights of centre and face k, in double.
#pragma once

#include <memory>
#include <vector>

#include "grid/backend.hpp"
#include "grid/config.hpp"
#include "grid/layout.hpp"

namespace bouss {

struct Grid;

// One table, read through the read-only data cache on the GPU (as View<const T>).
template <class T>
struct ZTable {
  const T* __restrict__ p = nullptr;
  BOUSS_HD T operator[](int k) const {
#if defined(__CUDA_ARCH__)
    return __ldg(p + k);
#else
    return p[k];
#endif
  }
};

template <class R>
struct ZView {
  static constexpr bool uniform = false;
  ZTable<R> rdz;
  ZTable<R> rdzc;
  ZTable<R> upper;
  ZTable<double> zc;
  ZTable<double> zf;
  // A cell-centred value interpolated to z face k from the cells k-1 (lo) and k (hi).
  BOUSS_HD R to_face(int k, R lo, R hi) const { return lo + upper[k] * (hi - lo); }
};

// The same geometry for a uniform z, its spacings one value for every level: the step's
// kernels are compiled for both (Stencil<R, Z>), and the uniform ones load nothing for z
// (measured on the H200: reading the tables in every point cost the Ra = 1e7 step 17-30%).
template <class T>
struct ConstTable {
  T value;
  BOUSS_HD T operator[](int) const { return value; }
};
template <class R>
struct UniformZ {
  static constexpr bool uniform = true;
  R rd2;  // 1/dz^2: the Laplacian's z part in the form it had before z could stretch
  ConstTable<R> rdz;
  ConstTable<R> rdzc;
  ConstTable<R> upper;
  ZTable<double> zc;
  ZTable<double> zf;
  BOUSS_HD R to_face(int, R lo, R hi) const { return R(0.5) * (lo + hi); }
};

// One backend's copy of a grid's tables; the grid keeps them (Grid::z_view) for its lifetime.
class ZTables {
 public:
  ZTables(const Grid& g, const Backend& backend, int axis = 2);
  ~ZTables();
  ZTables(const ZTables&) = delete;
  ZTables& operator=(const ZTables&) = delete;
  const Backend& backend() const { return backend_; }
  int axis() const { return axis_; }
  template <class R>
  ZView<R> view() const;

 private:
  Backend backend_;
  int axis_ = 2;
  void* data_ = nullptr;
  ZView<double> d_;
  ZView<float> f_;
};

// Bytes one backend's tables of a grid laid out as L take along axis a (memory estimates).
inline double z_table_bytes(const Layout& L, int a = 2) {
  return double(L.n[a] + 2 * L.ghost + 1) * (5 * sizeof(double) + 3 * sizeof(float));
}
// The tables the step's stencil makes: z's, and x's and y's too where x or y is stretched
// (the general stencil reads tables along every horizontal axis).
inline double stencil_table_bytes(const Layout& L, bool stretched_horizontally) {
  return z_table_bytes(L) + (stretched_horizontally ? z_table_bytes(L, 0) + z_table_bytes(L, 1) : 0.0);
}

// The tables a grid has made, one per backend kind.
struct ZTableCache {
  std::vector<std::unique_ptr<ZTables>> tables;
};

}  // namespace bouss
