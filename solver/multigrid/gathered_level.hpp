// The last level of a multigrid kept on the ranks' blocks, and the same level whole on rank
// 0, below which rank 0 cycles the coarser levels alone (pressure.agglomerate_below): the
// residual gathered there, the correction scattered back and added. The multigrid driver's
// hierarchy uses it (solver/multigrid/hierarchy.hpp); the restriction to and the prolongation
// from the gathered levels are its level operator's. The messages go by grid/gather.hpp
// (NCCL from device memory where the run has it).
#pragma once

#include <string>

#include "grid/field.hpp"
#include "grid/field_ops.hpp"
#include "grid/grid.hpp"
#include "grid/gather.hpp"

namespace bouss {

template <class S>
class GatheredLevel {
 public:
  static constexpr int root = 0;

  GatheredLevel() = default;
  // `last`: this rank's block of the last level on the ranks; `name` prefixes the fields'.
  GatheredLevel(const Backend& backend, const Grid& last, const std::string& name) : part_(last) {
    boundary_ = Field<S>(backend, last.layout, Stagger::centre, name + " gathered residual");
    fill(boundary_, 0);
    if (backend.ranks().rank() != root) return;
    whole_grid_ = last.whole();
    whole_ = Field<S>(backend.with_ranks(Communicator::self()), whole_grid_.layout, Stagger::centre,
                      name + " gathered level");
    fill(whole_, 0);
  }

  // Whether this rank holds the whole level (rank 0), and that level.
  bool on_root() const { return whole_.allocated(); }
  const Grid& whole_grid() const { return whole_grid_; }
  Field<S>& whole() { return whole_; }
  // A field of the last level's layout on the ranks (the residual may be computed into it).
  Field<S>& boundary() { return boundary_; }

  // v, a field of the last level on the ranks, -> whole() on rank 0. Collective.
  void gather(const Field<S>& v) { gather_field(v, part_, on_root() ? &whole_ : nullptr, root); }
  // whole() on rank 0 -> each rank's block, added to x's interior (x + (0 + P e): the bits
  // of a single rank's x + P e). Collective.
  void scatter_add(Field<S>& x) {
    scatter_field(on_root() ? &whole_ : nullptr, boundary_, part_, root);
    add_field(x, boundary_, part_.layout.interior(Stagger::centre));
  }

 private:
  Grid part_, whole_grid_;
  Field<S> boundary_, whole_;
};

}  // namespace bouss
