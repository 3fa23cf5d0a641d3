// The geometry of one C-grid: its layout and spacings. Along x and y cell i spans
// [lo + i h, lo + (i+1) h]; along z the cells may be stretched: cell k spans
// [z_face(k), z_face(k+1)], the face positions given by the case (grid.z) or uniform.
// T and p sit at centres, u, v, w on the x-, y-, z-faces. The geometry is double whatever the
// fields' precision; the layout's rows are aligned for the fields' element size (elem_bytes).
//
// Ghost cells beyond a z wall mirror the cells inside (dz(-1-m) = dz(m)), so the wall rule
// (grid/boundary.hpp) sees the wall half-way between a ghost centre and its mirror image.
// A stretched z axis is never periodic (the case validator says so).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "grid/config.hpp"
#include "grid/decomposition.hpp"
#include "grid/layout.hpp"
#include "grid/z_tables.hpp"

namespace bouss {

// A function linear in z along the z-levels k of a grid (interior index from 0), as it
// reaches a kernel, in double: first + step * z[k] with z a table of heights (a stretched
// grid's, from its z tables, on the kernel's backend), or first + step * k without one.
struct LevelLine {
  double first = 0, step = 0;
  const double* z = nullptr;
  BOUSS_HD double operator()(int k) const { return first + step * (z ? z[k] : double(k)); }
};

struct Grid {
  Layout layout;
  std::array<double, 3> lo{};  // domain origin
  // Spacing; along a stretched z, the mean spacing (length / n): use dz(k) and dz_centres(k).
  std::array<double, 3> h{};
  // z-face positions z_face(0) = lo[2] .. z_face(n) = lo[2] + length, when stretched.
  std::shared_ptr<const std::vector<double>> stretched_z;
  // The z tables this geometry has put on each backend (z_view), shared by copies of it.
  mutable std::shared_ptr<ZTableCache> z_cache;
  // Where this block lies in a grid cut over ranks (part()); null for a whole grid.
  std::shared_ptr<const Decomposition> decomposition;

  static Grid make(const std::array<int, 3>& n, const std::array<double, 3>& lo,
                   const std::array<double, 3>& length, int ghost = 1, std::size_t elem_bytes = sizeof(double)) {
    Grid g;
    g.layout = Layout::make(n, ghost, elem_bytes);
    g.lo = lo;
    for (int a = 0; a < 3; ++a) g.h[a] = length[a] / n[a];
    return g;
  }
  // A grid whose z faces sit at `z_faces` (n[2] + 1 increasing values, the first lo[2]).
  static Grid make_stretched(const std::array<int, 3>& n, const std::array<double, 3>& lo,
                             const std::array<double, 3>& length, const std::vector<double>& z_faces, int ghost = 1,
                             std::size_t elem_bytes = sizeof(double)) {
    if (int(z_faces.size()) != n[2] + 1) throw std::invalid_argument("Grid::make_stretched: need n_z + 1 z faces");
    Grid g = make(n, lo, length, ghost, elem_bytes);
    g.stretched_z = std::make_shared<const std::vector<double>>(z_faces);
    return g;
  }
  // The same geometry with another layout (a multigrid level coarsened in x and y only, a
  // field of another precision): the z faces carry over when n_z does.
  Grid with_layout(const Layout& L, const std::array<double, 3>& length) const {
    Grid g = *this;
    g.layout = L;
    for (int a = 0; a < 3; ++a) g.h[a] = length[a] / L.n[a];
    if (stretched_z && L.n[2] != layout.n[2]) throw std::invalid_argument("Grid::with_layout: a stretched z is not coarsened");
    g.z_cache.reset();
    return g;
  }

  // This rank's block of the grid: d.n cells from cell d.offset, at their own positions,
  // with the same spacings and z faces (z is never cut).
  Grid part(const Decomposition& d) const {
    if (d.global_n != layout.n) throw std::invalid_argument("Grid::part: the decomposition is of another grid");
    Grid g = *this;
    g.layout = Layout::make(d.n, layout.ghost, layout.elem_bytes);
    for (int a = 0; a < 2; ++a) g.lo[a] = lo[a] + d.offset[a] * h[a];
    g.z_cache.reset();
    g.decomposition = std::make_shared<const Decomposition>(d);
    return g;
  }
  // The whole grid that part() cut this block from (itself when it was not cut).
  Grid whole() const {
    if (!decomposition) return *this;
    Grid g = *this;
    g.layout = Layout::make(decomposition->global_n, layout.ghost, layout.elem_bytes);
    for (int a = 0; a < 2; ++a) g.lo[a] = lo[a] - decomposition->offset[a] * h[a];
    g.z_cache.reset();
    g.decomposition.reset();
    return g;
  }
  // A multigrid level of this geometry: the whole grid's on `shape` cells (z faces kept where
  // n_z stays), laid out for elem_bytes; this rank's block of it where `block` is given.
  Grid level(const std::array<int, 3>& shape, std::size_t elem_bytes, const Decomposition* block = nullptr) const {
    const Grid w = whole();
    const Grid g = w.with_layout(Layout::make(shape, layout.ghost, elem_bytes), {w.length(0), w.length(1), w.length(2)});
    return block ? g.part(*block) : g;
  }
  // The global index of this block's cell 0 along each axis (0 for a whole grid).
  std::array<int, 3> offset() const { return decomposition ? decomposition->offset : std::array<int, 3>{0, 0, 0}; }
  // The cells of the whole grid.
  std::array<int, 3> global_n() const { return decomposition ? decomposition->global_n : layout.n; }

  const std::array<int, 3>& n() const { return layout.n; }
  bool stretched() const { return bool(stretched_z); }
  double length(int a) const { return h[a] * layout.n[a]; }

  // Position of z face k, 0 <= k <= n_z; beyond, the mirror images of the ghost cells' faces.
  double z_face(int k) const {
    const int nz = layout.n[2];
    if (!stretched_z) return lo[2] + k * h[2];
    const auto& f = *stretched_z;
    if (k < 0) return 2 * f[0] - f[-k];
    if (k > nz) return 2 * f[nz] - f[2 * nz - k];
    return f[k];
  }
  // Thickness of cell k (ghost cells included) and the distance between the centres of
  // cells k - 1 and k (the spacing across z face k).
  // On a uniform grid both are h[2], exactly.
  double dz(int k) const { return stretched_z ? z_face(k + 1) - z_face(k) : h[2]; }
  double z_centre(int k) const { return stretched_z ? 0.5 * (z_face(k) + z_face(k + 1)) : lo[2] + (k + 0.5) * h[2]; }
  double dz_centres(int k) const { return stretched_z ? z_centre(k) - z_centre(k - 1) : h[2]; }
  // The smallest cell thickness along z.
  double min_dz() const {
    double m = dz(0);
    for (int k = 1; k < layout.n[2]; ++k) m = dz(k) < m ? dz(k) : m;
    return m;
  }

  // The spacings that limit the time step: dx, dy and the thinnest z cell.
  std::array<double, 3> smallest_spacings() const { return {h[0], h[1], min_dz()}; }

  // The z tables on `backend` (made on first use, kept while any copy of this grid lives).
  template <class R>
  ZView<R> z_view(const Backend& backend) const {
    if (!z_cache) z_cache = std::make_shared<ZTableCache>();
    for (const auto& t : z_cache->tables)
      if (t->backend() == backend) return t->template view<R>();
    z_cache->tables.push_back(std::make_unique<ZTables>(*this, backend));
    return z_cache->tables.back()->template view<R>();
  }

  // Coordinate of point index i along axis a for a field of stagger s.
  double coordinate(Stagger s, int a, int i) const {
    if (a == 2) return staggered_along(s, 2) ? z_face(i) : z_centre(i);
    return lo[a] + (i + (staggered_along(s, a) ? 0.0 : 0.5)) * h[a];
  }
  double cell_volume(int k) const { return h[0] * h[1] * dz(k); }
  double volume() const { return length(0) * length(1) * length(2); }
};

}  // namespace bouss
