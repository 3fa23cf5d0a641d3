#include "solver/gathered_solver.hpp"

#include <chrono>
#include <cstring>

#include "grid/field_ops.hpp"
#include "grid/gather.hpp"
#include "parallel/rank_costs.hpp"

namespace bouss {

namespace {

// SolveStats as bytes, for the broadcast from rank 0.
std::vector<char> pack_stats(const SolveStats& s) {
  const int head[5] = {s.cycles, s.fmg, s.converged, s.stalled, s.checked};
  const std::size_t n = s.residual_history.size();
  std::vector<char> out(sizeof head + sizeof n + n * sizeof(double));
  std::memcpy(out.data(), head, sizeof head);
  std::memcpy(out.data() + sizeof head, &n, sizeof n);
  if (n) std::memcpy(out.data() + sizeof head + sizeof n, s.residual_history.data(), n * sizeof(double));
  return out;
}
SolveStats unpack_stats(const std::vector<char>& in) {
  int head[5];
  std::size_t n = 0;
  std::memcpy(head, in.data(), sizeof head);
  std::memcpy(&n, in.data() + sizeof head, sizeof n);
  SolveStats s;
  s.cycles = head[0], s.fmg = head[1], s.converged = head[2], s.stalled = head[3], s.checked = head[4];
  s.residual_history.resize(n);
  if (n) std::memcpy(s.residual_history.data(), in.data() + sizeof head + sizeof n, n * sizeof(double));
  return s;
}
SolveStats broadcast_stats(const Communicator& ranks, const SolveStats& s, int root) {
  std::vector<char> bytes = ranks.rank() == root ? pack_stats(s) : std::vector<char>();
  std::size_t size = bytes.size();
  ranks.broadcast(&size, sizeof size, root);
  bytes.resize(size);
  ranks.broadcast(bytes.data(), size, root);
  return unpack_stats(bytes);
}

}  // namespace

template <class R>
GatheredSolver<R>::GatheredSolver(const SolverType& type, const SolverSettings& s, const Backend& backend,
                                  const Grid& part, const FieldBC& bc)
    : backend_(backend), part_(part), whole_(part.whole()), bc_part_(bc) {
  if (backend_.ranks().rank() != root) return;
  const Backend alone = backend_.with_ranks(Communicator::self());
  solver_ = make_solver<R>(type, alone, whole_, bc.whole(), s);
  x_ = Field<R>(alone, whole_.layout, Stagger::centre, "p (whole)");
  b_ = Field<R>(alone, whole_.layout, Stagger::centre, "rhs (whole)");
  fill(x_, 0);
  fill(b_, 0);
}

template <class R>
void GatheredSolver<R>::gather(const Field<R>& f, Field<R>& whole) const {
  gather_field(f, part_, backend_.ranks().rank() == root ? &whole : nullptr, root);
}

template <class R>
SolveStats GatheredSolver<R>::solve(Field<R>& x, Field<R>& b, double tolerance) {
  const Communicator& ranks = backend_.ranks();
  const auto started = std::chrono::steady_clock::now();
  gather(b, b_);
  gather(x, x_);
  SolveStats stats;
  if (ranks.rank() == root) stats = solver_->solve(x_, b_, tolerance);
  // b's mean was taken out by the solve (the contract): hand that back too.
  scatter_field(ranks.rank() == root ? &b_ : nullptr, b, part_, root);
  scatter_field(ranks.rank() == root ? &x_ : nullptr, x, part_, root);
  fill_ghosts(x, bc_part_, part_);
  const SolveStats all = broadcast_stats(ranks, stats, root);
  rank_costs().gathered_solve_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return all;
}

template <class R>
double GatheredSolver<R>::residual_norm(const Field<R>& x, const Field<R>& b) const {
  const Communicator& ranks = backend_.ranks();
  gather(x, x_);
  gather(b, b_);
  double r = 0;
  if (ranks.rank() == root) {
    fill_ghosts(x_, bc_part_.whole(), whole_);
    r = solver_->residual_norm(x_, b_);
  }
  ranks.broadcast(&r, sizeof r, root);
  return r;
}

// Rank 0's whole-grid solve; the other ranks move nothing through a solver of their own (a
// query, not a collective: ranks may ask it apart).
template <class R>
double GatheredSolver<R>::bytes_per_solve(const SolveStats& s) const {
  return solver_ ? solver_->bytes_per_solve(s) : 0;
}

template class GatheredSolver<double>;
template class GatheredSolver<float>;

}  // namespace bouss
