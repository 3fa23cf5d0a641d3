// The geometry of one C-grid: its layout and spacings. Along each axis a cell i spans
// [face(a, i), face(a, i + 1)]: lo + i h on a uniform axis, or the face positions given for
// a stretched one (the case's grid.z; x and y where a grid is made so). T and p sit at
// centres, u, v, w on the x-, y-, z-faces. The geometry is double whatever the fields'
// precision; the layout's rows are aligned for the fields' element size (elem_bytes).
//
// Ghost cells beyond a wall of a stretched axis mirror the cells inside (width(-1-m) =
// width(m)), so the wall rule (grid/boundary.hpp) sees the wall half-way between a ghost
// centre and its mirror image; beyond a periodic stretched axis (x or y: a stretched z is
// never periodic, as the case validator says) they are the cells at the other end.
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
  // Spacing; along a stretched axis, the mean spacing (length / n): use width(a, i) and
  // centre_distance(a, i) (dz(k) and dz_centres(k) along z).
  std::array<double, 3> h{};
  // The whole grid's face positions along each stretched axis, faces[0] = the whole grid's lo
  // .. faces[n] = its lo + length (null: uniform); a block's index i is the whole grid's
  // i + offset()[a]. stretched_z is z's.
  std::array<std::shared_ptr<const std::vector<double>>, 3> stretched_faces;
  // A stretched periodic axis (x or y): its ghosts are the other end's cells.
  std::array<bool, 3> periodic_stretch{};
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
    Grid g = make(n, lo, length, ghost, elem_bytes);
    g.stretch(2, z_faces, false);
    return g;
  }
  // Stretches axis a: its faces at `faces` (n[a] + 1 increasing values from lo[a] to
  // lo[a] + length); `periodic`: its ghosts wrap (x or y).
  void stretch(int a, const std::vector<double>& faces, bool periodic) {
    if (int(faces.size()) != layout.n[a] + 1) throw std::invalid_argument("Grid::stretch: need n + 1 faces");
    if (a == 2 && periodic) throw std::invalid_argument("Grid::stretch: a stretched z is never periodic");
    stretched_faces[a] = std::make_shared<const std::vector<double>>(faces);
    periodic_stretch[a] = periodic;
    z_cache.reset();
  }
  // The same geometry with another layout (a multigrid level coarsened in x and y only, a
  // field of another precision): the z faces carry over when n_z does.
  Grid with_layout(const Layout& L, const std::array<double, 3>& length) const {
    Grid g = *this;
    g.layout = L;
    for (int a = 0; a < 3; ++a) {
      g.h[a] = length[a] / L.n[a];
      if (stretched_faces[a] && L.n[a] != layout.n[a])
        throw std::invalid_argument("Grid::with_layout: a stretched axis is not coarsened");
    }
    g.z_cache.reset();
    return g;
  }

  // This rank's block of the grid: d.n cells from cell d.offset, at their own positions,
  // with the same spacings and z faces (z is never cut).
  Grid part(const Decomposition& d) const {
    if (d.global_n != layout.n) throw std::invalid_argument("Grid::part: the decomposition is of another grid");
    Grid g = *this;
    g.layout = Layout::make(d.n, layout.ghost, layout.elem_bytes);
    for (int a = 0; a < 2; ++a) g.lo[a] = stretched_faces[a] ? (*stretched_faces[a])[d.offset[a]] : lo[a] + d.offset[a] * h[a];
    g.z_cache.reset();
    g.decomposition = std::make_shared<const Decomposition>(d);
    return g;
  }
  // The whole grid that part() cut this block from (itself when it was not cut).
  Grid whole() const {
    if (!decomposition) return *this;
    Grid g = *this;
    g.layout = Layout::make(decomposition->global_n, layout.ghost, layout.elem_bytes);
    for (int a = 0; a < 2; ++a)
      g.lo[a] = stretched_faces[a] ? stretched_faces[a]->front() : lo[a] - decomposition->offset[a] * h[a];
    g.z_cache.reset();
    g.decomposition.reset();
    return g;
  }
  // A multigrid level of this geometry: the whole grid's on `shape` cells (z faces kept where
  // n_z stays), laid out for elem_bytes with `ghost` layers (0: this grid's); this rank's
  // block of it where `block` is given.
  Grid level(const std::array<int, 3>& shape, std::size_t elem_bytes, const Decomposition* block = nullptr,
             int ghost = 0) const {
    const Grid w = whole();
    const Grid g = w.with_layout(Layout::make(shape, ghost ? ghost : layout.ghost, elem_bytes),
                                 {w.length(0), w.length(1), w.length(2)});
    return block ? g.part(*block) : g;
  }
  // The global index of this block's cell 0 along each axis (0 for a whole grid).
  std::array<int, 3> offset() const { return decomposition ? decomposition->offset : std::array<int, 3>{0, 0, 0}; }
  // The cells of the whole grid.
  std::array<int, 3> global_n() const { return decomposition ? decomposition->global_n : layout.n; }

  const std::array<int, 3>& n() const { return layout.n; }
  // z is stretched (the kernels' stretched-z geometry); stretched(a): axis a is.
  bool stretched() const { return bool(stretched_faces[2]); }
  bool stretched(int a) const { return bool(stretched_faces[a]); }
  // x or y is stretched (the kernels' general geometry, tables along every axis).
  bool stretched_horizontally() const { return stretched(0) || stretched(1); }
  // This block's extent along axis a (the whole grid's for a whole grid).
  double length(int a) const {
    return stretched_faces[a] ? face(a, layout.n[a]) - face(a, 0) : h[a] * layout.n[a];
  }

  // Position of face i along axis a of this block (0 <= i <= n; beyond, the ghost cells'
  // faces: a wall's mirror images, a periodic axis's other end).
  double face(int a, int i) const {
    if (!stretched_faces[a]) return lo[a] + i * h[a];
    const auto& f = *stretched_faces[a];
    const int n = int(f.size()) - 1, at = i + offset()[a];
    if (at >= 0 && at <= n) return f[at];
    if (periodic_stretch[a]) return at < 0 ? f[at + n] - (f[n] - f[0]) : f[at - n] + (f[n] - f[0]);
    return at < 0 ? 2 * f[0] - f[-at] : 2 * f[n] - f[2 * n - at];
  }
  // Width of cell i along axis a (ghosts included), its centre, and the distance between the
  // centres of cells i - 1 and i (the spacing across face i). On a uniform axis the widths
  // and distances are h[a], exactly.
  double width(int a, int i) const { return stretched_faces[a] ? face(a, i + 1) - face(a, i) : h[a]; }
  double centre(int a, int i) const {
    return stretched_faces[a] ? 0.5 * (face(a, i) + face(a, i + 1)) : lo[a] + (i + 0.5) * h[a];
  }
  double centre_distance(int a, int i) const { return stretched_faces[a] ? centre(a, i) - centre(a, i - 1) : h[a]; }
  // The smallest cell width along axis a of this block.
  double min_width(int a) const {
    double m = width(a, 0);
    for (int i = 1; i < layout.n[a]; ++i) m = width(a, i) < m ? width(a, i) : m;
    return m;
  }
  // The whole grid's faces along axis a (n + 1 values, uniform ones computed).
  std::vector<double> faces(int a) const {
    if (stretched_faces[a]) return *stretched_faces[a];
    const Grid w = whole();
    std::vector<double> f(w.layout.n[a] + 1);
    for (int i = 0; i <= w.layout.n[a]; ++i) f[i] = w.lo[a] + i * h[a];
    f.back() = w.lo[a] + w.length(a);
    return f;
  }

  // Along z (never cut over ranks): face k, the thickness of cell k, its centre, the
  // distance across face k; on a uniform z dz and dz_centres are h[2], exactly.
  double z_face(int k) const { return face(2, k); }
  double dz(int k) const { return width(2, k); }
  double z_centre(int k) const { return centre(2, k); }
  double dz_centres(int k) const { return centre_distance(2, k); }
  // The smallest cell thickness along z.
  double min_dz() const { return min_width(2); }

  // The spacings that limit the time step: the thinnest cell of the whole grid along each axis
  // (every rank's block sees the same, so that the ranks agree on dt and on the solver).
  std::array<double, 3> smallest_spacings() const {
    const Grid w = whole();
    return {w.min_width(0), w.min_width(1), w.min_width(2)};
  }

  // The z tables on `backend` (made on first use, kept while any copy of this grid lives);
  // axis_view: axis a's.
  template <class R>
  ZView<R> z_view(const Backend& backend) const {
    return axis_view<R>(backend, 2);
  }
  template <class R>
  ZView<R> axis_view(const Backend& backend, int a) const {
    if (!z_cache) z_cache = std::make_shared<ZTableCache>();
    for (const auto& t : z_cache->tables)
      if (t->backend() == backend && t->axis() == a) return t->template view<R>();
    z_cache->tables.push_back(std::make_unique<ZTables>(*this, backend, a));
    return z_cache->tables.back()->template view<R>();
  }

  // Coordinate of point index i along axis a for a field of stagger s.
  double coordinate(Stagger s, int a, int i) const {
    if (!stretched_faces[a]) return lo[a] + (i + (staggered_along(s, a) ? 0.0 : 0.5)) * h[a];
    return staggered_along(s, a) ? face(a, i) : centre(a, i);
  }
  double cell_volume(int i, int j, int k) const { return width(0, i) * width(1, j) * dz(k); }
  double cell_volume(int k) const { return h[0] * h[1] * dz(k); }
  double volume() const { return length(0) * length(1) * length(2); }
};

}  // namespace bouss
