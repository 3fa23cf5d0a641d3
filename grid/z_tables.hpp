// The z geometry of a grid as tables per level k, resident where the kernels run (device
// memory on CUDA): the pointwise operators read the local vertical spacing through them
// (physics/operators_kernels.hpp), so one kernel serves a uniform and a stretched z.
// On a uniform grid every entry is the one spacing, exactly (Grid::dz returns h[2]).
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

template <class R>
struct ZView {
  const R* rdz = nullptr;
  const R* rdzc = nullptr;
  const R* upper = nullptr;
  const double* zc = nullptr;
  const double* zf = nullptr;
  // A cell-centred value interpolated to z face k from the cells k-1 (lo) and k (hi).
  BOUSS_HD R to_face(int k, R lo, R hi) const { return lo + upper[k] * (hi - lo); }
};

// One backend's copy of a grid's tables; the grid keeps them (Grid::z_view) for its lifetime.
class ZTables {
 public:
  ZTables(const Grid& g, const Backend& backend);
  ~ZTables();
  ZTables(const ZTables&) = delete;
  ZTables& operator=(const ZTables&) = delete;
  const Backend& backend() const { return backend_; }
  template <class R>
  ZView<R> view() const;

 private:
  Backend backend_;
  void* data_ = nullptr;
  ZView<double> d_;
  ZView<float> f_;
};

// Bytes one backend's tables of a grid laid out as L take (memory estimates).
inline double z_table_bytes(const Layout& L) {
  return double(L.n[2] + 2 * L.ghost + 1) * (5 * sizeof(double) + 3 * sizeof(float));
}

// The tables a grid has made, one per backend kind.
struct ZTableCache {
  std::vector<std::unique_ptr<ZTables>> tables;
};

}  // namespace bouss
