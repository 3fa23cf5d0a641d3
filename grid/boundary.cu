// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/boundary.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "grid/for_each.hpp"
#include "grid/grid.hpp"
#include "grid/halo.hpp"

namespace bouss {

namespace {

// Ghost layer m (1..g) on both sides of one axis, for data located at cell centres along
// that axis (interior points 0..n-1; the boundary face lies half a cell beyond).
// A side exchanged with another rank (xlo, xhi) is left to the halo exchange.
template <class S>
struct CentreFill {
  BOUSS_HD static void apply(S* p, std::ptrdiff_t s, int n, int m, BoundaryKind klo, S vlo,
                             BoundaryKind khi, S vhi, S hlo, S hhi, bool xlo, bool xhi) {
    S* lo_ghost = p - m * s;
    S* hi_ghost = p + (n - 1 + m) * s;
    if (klo == BoundaryKind::periodic) {
      if (xlo) return;  // a cut periodic axis: both sides exchanged
      *lo_ghost = p[(n - m) * s];
      *hi_ghost = p[(m - 1) * s];
      return;
    }
    if (!xlo) *lo_ghost = cell_wall_ghost(klo, vlo, hlo, 0, m)(p[(m - 1) * s]);
    if (!xhi) *hi_ghost = cell_wall_ghost(khi, vhi, hhi, 1, m)(p[(n - m) * s]);
  }
};

// The same for data on the faces normal to that axis (points 0..n, faces 0 and n on the
// boundary). A value condition fixes the boundary faces; the ghosts mirror about them.
template <class S>
struct FaceFill {
  BOUSS_HD static void apply(S* p, std::ptrdiff_t s, int n, int m, BoundaryKind klo, S vlo,
                             BoundaryKind khi, S vhi, S hlo, S hhi, bool xlo, bool xhi) {
    if (klo == BoundaryKind::periodic) {
      if (xlo) return;
      if (m == 1) p[n * s] = p[0];
      p[-m * s] = p[(n - m) * s];
      p[(n + m) * s] = p[m * s];
      return;
    }
    if (m == 1) {
      if (klo == BoundaryKind::value && !xlo) p[0] = vlo;
      if (khi == BoundaryKind::value && !xhi) p[n * s] = vhi;
    }
    const S lo_in = p[m * s], hi_in = p[(n - m) * s];
    if (!xlo) p[-m * s] = klo == BoundaryKind::value ? 2 * vlo - lo_in : lo_in - 2 * m * hlo * vlo;
    if (!xhi) p[(n + m) * s] = khi == BoundaryKind::value ? 2 * vhi - hi_in : hi_in + 2 * m * hhi * vhi;
  }
};

// One field's ghost fill along one axis, as the fill kernel needs it.
template <class S>
struct AxisFill {
  S* origin;
  int n;         // interior points along the axis (cells, or faces less the duplicate one)
  int hib, hic;  // the end of the field's padded range along the other two axes
  bool faces;
  bool xlo, xhi;  // sides exchanged with other ranks
  BoundaryKind klo, khi;
  S vlo, vhi, slo, shi;
  const double* height;  // z of the points along z (the z tables' centres or faces)
};
template <class S>
struct AxisFills {
  AxisFill<S> f[max_fill_fields];
};

}  // namespace

template <class S>
void fill_ghosts(Field<S>* const fields[], const FieldBC* const bcs[], int count, const Grid& g) {
  if (count < 1 || count > max_fill_fields) throw std::logic_error("fill_ghosts: 1 to 4 fields at once");
  const Layout& L = fields[0]->layout();
  for (int q = 1; q < count; ++q)
    if (fields[q]->layout().n != L.n || fields[q]->layout().ghost != L.ghost || fields[q]->layout().sy != L.sy ||
        fields[q]->layout().sz != L.sz || !(fields[q]->backend() == fields[0]->backend()))
      throw std::logic_error("fill_ghosts: fields filled together must share a layout and a backend");
  const int ghost = L.ghost;
  // The spacing at each wall that a gradient condition steps over: the wall cells' (their
  // ghosts mirror them), which for a stretched axis is exact in the first ghost layer only.
  if ((g.stretched() || g.stretched_horizontally()) && ghost > 1)
    throw std::logic_error("fill_ghosts: a stretched grid has one ghost layer");
  const ZView<double> zt = g.z_view<double>(fields[0]->backend());
  const double z0 = g.lo[2];
  for (int a = 0; a < 3; ++a) {
    // The other two axes in storage order, so that the threads of a warp run along the
    // lower one: contiguous rows for the y and z fills.
    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
    const std::ptrdiff_t sa = L.stride(a), sb = L.stride(b), sc = L.stride(c);
    AxisFills<S> fills{};
    int hib = 0, hic = 0;
    for (int q = 0; q < count; ++q) {
      const Field<S>& f = *fields[q];
      const FieldBC& bc = *bcs[q];
      AxisFill<S>& F = fills.f[q];
      F.origin = fields[q]->view().origin;
      F.faces = staggered_along(f.stagger(), a);
      F.n = L.points(f.stagger(), a) - (F.faces ? 1 : 0);
      F.klo = bc.face[2 * a].kind;
      F.khi = bc.face[2 * a + 1].kind;
      F.xlo = bc.exchanged(2 * a);
      F.xhi = bc.exchanged(2 * a + 1);
      if (F.xlo != bcs[0]->exchanged(2 * a) || F.xhi != bcs[0]->exchanged(2 * a + 1))
        throw std::logic_error("fill_ghosts: fields filled together must be cut alike");
      F.vlo = S(bc.face[2 * a].value);
      F.vhi = S(bc.face[2 * a + 1].value);
      // z-varying wall values: value + slope (z - z0) at the point's height.
      F.slo = a == 2 ? S(0) : S(bc.face[2 * a].slope_z);
      F.shi = a == 2 ? S(0) : S(bc.face[2 * a + 1].slope_z);
      F.height = staggered_along(f.stagger(), 2) ? zt.zf.p : zt.zc.p;
      const Box padded = L.padded(f.stagger());
      F.hib = padded.hi[b];
      F.hic = padded.hi[c];
      hib = std::max(hib, F.hib);
      hic = std::max(hic, F.hic);
    }
    const S hlo = S(g.width(a, 0)), hhi = S(g.width(a, L.n[a] - 1));
    std::string names;  // for BOUSS_CHECK_KERNELS reports
    if (check_kernels_enabled())
      for (int q = 0; q < count; ++q) names += (q ? ", " : "") + fields[q]->name();
    // Points: x -> axis b, y -> axis c, each over the field's padded range (a face field has
    // one point more along its own axis), z -> field q and ghost layer m. The slopes are
    // zero for the z fill, so c is z wherever the height matters.
    const Box box{{-ghost, -ghost, 0}, {hib, hic, count * ghost}};
    for_each(fields[0]->backend(), box, [=] BOUSS_HD(int jb, int kc, int qm) {
      const AxisFill<S>& F = fills.f[qm / ghost];
      if (jb >= F.hib || kc >= F.hic) return;
      const int m = 1 + qm % ghost;
      // Only where a slope is non-zero is c the z axis (never for the z fill).
      const S z = F.slo != S(0) || F.shi != S(0) ? S(F.height[kc] - z0) : S(0);
      S* p = F.origin + jb * sb + kc * sc;
      if (F.faces) FaceFill<S>::apply(p, sa, F.n, m, F.klo, F.vlo + F.slo * z, F.khi, F.vhi + F.shi * z, hlo, hhi, F.xlo, F.xhi);
      else CentreFill<S>::apply(p, sa, F.n, m, F.klo, F.vlo + F.slo * z, F.khi, F.vhi + F.shi * z, hlo, hhi, F.xlo, F.xhi);
    }, a == 0 ? "fill_ghosts x" : a == 1 ? "fill_ghosts y" : "fill_ghosts z", names.c_str());
    if (bcs[0]->exchanged(2 * a) || bcs[0]->exchanged(2 * a + 1)) exchange_halos(fields, bcs, count, a);
  }
}

template <class S>
void fill_ghosts(Field<S>& f, const FieldBC& bc, const Grid& g) {
  Field<S>* const fields[1] = {&f};
  const FieldBC* const bcs[1] = {&bc};
  fill_ghosts(fields, bcs, 1, g);
}

template void fill_ghosts<double>(Field<double>&, const FieldBC&, const Grid&);
template void fill_ghosts<float>(Field<float>&, const FieldBC&, const Grid&);
template void fill_ghosts<double>(Field<double>* const[], const FieldBC* const[], int, const Grid&);
template void fill_ghosts<float>(Field<float>* const[], const FieldBC* const[], int, const Grid&);

Box unknown_box(const Layout& layout, Stagger s, const FieldBC& bc) {
  Box box = layout.interior(s);
  for (int a = 0; a < 3; ++a) {
    if (!staggered_along(s, a)) continue;
    // Face n duplicates face 0 across a periodic axis, or is the next rank's face 0.
    if (bc.periodic(a) || bc.exchanged(2 * a + 1) || bc.face[2 * a + 1].kind == BoundaryKind::value) box.hi[a] -= 1;
    if (!bc.periodic(a) && !bc.exchanged(2 * a) && bc.face[2 * a].kind == BoundaryKind::value) box.lo[a] += 1;
  }
  return box;
}

}  // namespace bouss
