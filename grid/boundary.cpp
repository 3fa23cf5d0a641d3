// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "grid/boundary.hpp"

#include "grid/for_each.hpp"

namespace bouss {

namespace {

// Ghost layer m (1..g) on both sides of one axis, for data located at cell centres along
// that axis (interior points 0..n-1; the boundary face lies half a cell beyond).
template <class S>
struct CentreFill {
  BOUSS_HD static void apply(S* p, std::ptrdiff_t s, int n, int m, BoundaryKind klo, S vlo,
                             BoundaryKind khi, S vhi, S h) {
    S* lo_ghost = p - m * s;
    S* hi_ghost = p + (n - 1 + m) * s;
    if (klo == BoundaryKind::periodic) {
      *lo_ghost = p[(n - m) * s];
      *hi_ghost = p[(m - 1) * s];
      return;
    }
    const S lo_in = p[(m - 1) * s], hi_in = p[(n - m) * s];
    *lo_ghost = klo == BoundaryKind::value ? 2 * vlo - lo_in : lo_in - (2 * m - 1) * h * vlo;
    *hi_ghost = khi == BoundaryKind::value ? 2 * vhi - hi_in : hi_in + (2 * m - 1) * h * vhi;
  }
};

// The same for data on the faces normal to that axis (points 0..n, faces 0 and n on the
// boundary). A value condition fixes the boundary faces; the ghosts mirror about them.
template <class S>
struct FaceFill {
  BOUSS_HD static void apply(S* p, std::ptrdiff_t s, int n, int m, BoundaryKind klo, S vlo,
                             BoundaryKind khi, S vhi, S h) {
    if (klo == BoundaryKind::periodic) {
      if (m == 1) p[n * s] = p[0];
      p[-m * s] = p[(n - m) * s];
      p[(n + m) * s] = p[m * s];
      return;
    }
    if (m == 1) {
      if (klo == BoundaryKind::value) p[0] = vlo;
      if (khi == BoundaryKind::value) p[n * s] = vhi;
    }
    const S lo_in = p[m * s], hi_in = p[(n - m) * s];
    p[-m * s] = klo == BoundaryKind::value ? 2 * vlo - lo_in : lo_in - 2 * m * h * vlo;
    p[(n + m) * s] = khi == BoundaryKind::value ? 2 * vhi - hi_in : hi_in + 2 * m * h * vhi;
  }
};

}  // namespace

template <class S>
void fill_ghosts(Field<S>& f, const FieldBC& bc, const std::array<Real, 3>& h) {
  const Layout& L = f.layout();
  const Box padded = L.padded(f.stagger());
  View<S> v = f.view();
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;  // the other two axes
    const std::ptrdiff_t sa = L.stride(a), sb = L.stride(b), sc = L.stride(c);
    const int n = L.points(f.stagger(), a) - (staggered_along(f.stagger(), a) ? 1 : 0);
    const BoundaryKind klo = bc.face[2 * a].kind, khi = bc.face[2 * a + 1].kind;
    const S vlo = S(bc.face[2 * a].value), vhi = S(bc.face[2 * a + 1].value), ha = S(h[a]);
    // Height above the bottom of point index iz along z, for z-varying wall values.
    const S slo = a == 2 ? S(0) : S(bc.face[2 * a].slope_z * h[2]);
    const S shi = a == 2 ? S(0) : S(bc.face[2 * a + 1].slope_z * h[2]);
    const S zoff = staggered_along(f.stagger(), 2) ? S(0) : S(0.5);
    const bool z_is_b = b == 2;
    // Points: x -> ghost layer m, y -> axis b, z -> axis c (each over its padded range).
    Box box{{1, padded.lo[b], padded.lo[c]}, {L.ghost + 1, padded.hi[b], padded.hi[c]}};
    S* origin = v.origin;
    if (staggered_along(f.stagger(), a)) {
      for_each(f.backend(), box, [=] BOUSS_HD(int m, int jb, int kc) {
        const S z = S(z_is_b ? jb : kc) + zoff;
        FaceFill<S>::apply(origin + jb * sb + kc * sc, sa, n, m, klo, vlo + slo * z, khi, vhi + shi * z, ha);
      }, "fill_ghosts (faces)");
    } else {
      for_each(f.backend(), box, [=] BOUSS_HD(int m, int jb, int kc) {
        const S z = S(z_is_b ? jb : kc) + zoff;
        CentreFill<S>::apply(origin + jb * sb + kc * sc, sa, n, m, klo, vlo + slo * z, khi, vhi + shi * z, ha);
      }, "fill_ghosts (centres)");
    }
  }
}

template void fill_ghosts<double>(Field<double>&, const FieldBC&, const std::array<Real, 3>&);
template void fill_ghosts<float>(Field<float>&, const FieldBC&, const std::array<Real, 3>&);

Box unknown_box(const Layout& layout, Stagger s, const FieldBC& bc) {
  Box box = layout.interior(s);
  for (int a = 0; a < 3; ++a) {
    if (!staggered_along(s, a)) continue;
    if (bc.periodic(a)) {
      box.hi[a] -= 1;  // face n duplicates face 0
    } else {
      if (bc.face[2 * a].kind == BoundaryKind::value) box.lo[a] += 1;
      if (bc.face[2 * a + 1].kind == BoundaryKind::value) box.hi[a] -= 1;
    }
  }
  return box;
}

}  // namespace bouss
