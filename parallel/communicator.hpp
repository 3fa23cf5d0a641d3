// The ranks a run computes on: MPI_COMM_WORLD where the build has MPI and the program was
// started by an MPI launcher (mpirun), else one rank alone. Every collective of bouss goes
// through here: reductions combined across ranks (grid/reduce.hpp), halo exchanges
// (grid/halo.hpp), gathers for output and the collective stop. A build without MPI, or a
// run without mpirun, makes the same calls and each is done by the one rank.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace bouss {

class Communicator {
 public:
  // MPI_COMM_WORLD (MPI initialised on the first call, finalised at exit) under a launcher;
  // otherwise the same object as self().
  static std::shared_ptr<const Communicator> world();
  // One rank alone.
  static std::shared_ptr<const Communicator> self();
  // Whether the build has MPI, and whether the MPI library moves device memory itself
  // (CUDA-aware: MPIX_Query_cuda_support), which the halo exchange asks before passing
  // device buffers.
  static bool mpi_compiled();
  bool cuda_aware() const { return cuda_aware_; }

  int rank() const { return rank_; }
  // This rank's number among the ranks of its node (which GPU it takes).
  int local_rank() const { return local_rank_; }
  int size() const { return size_; }
  bool alone() const { return size_ == 1; }

  // Every rank's `bytes` bytes at src, in rank order, into dst (size() * bytes bytes).
  void allgather(const void* src, void* dst, std::size_t bytes) const;
  // `bytes` bytes at p from rank root to every rank.
  void broadcast(void* p, std::size_t bytes, int root) const;
  // One exchange step: send_bytes at send to rank dest while receiving recv_bytes from rank
  // source into recv (MPI_Sendrecv); either rank may be -1 (nothing sent or received).
  void sendrecv(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes,
                int source, int tag) const;
  // Rank root receives every rank's bytes in rank order (counts may differ; recv only on root).
  void gatherv(const void* send, std::size_t bytes, std::vector<char>* recv_on_root, int root) const;
  // Every rank sends send_bytes[q] bytes to rank q, the pieces one after another at send in
  // rank order, and receives recv_bytes[p] bytes from rank p likewise into recv
  // (MPI_Alltoallv): the transposes of the distributed Fourier solver.
  void alltoallv(const void* send, const std::vector<std::size_t>& send_bytes, void* recv,
                 const std::vector<std::size_t>& recv_bytes) const;
  // The bits set on any rank (a bitwise or), on every rank: several flags agreed at once.
  unsigned any_bits(unsigned mine) const;

  // "rank r of n" for log lines, empty for a single rank.
  std::string describe() const;

  // The MPI communicator itself, for a library that takes one (parallel NetCDF), as the
  // address of an MPI_Comm; null for a rank alone (no MPI).
  const void* mpi_comm() const;
  // Whether the IO thread may call MPI while the main thread does (MPI_THREAD_MULTIPLE): the
  // output streams every rank writes while the steps go on (run/stream_output.hpp).
  bool threads_multiple() const { return multiple_; }
  // The same ranks for the IO thread's collectives (a duplicate of MPI_COMM_WORLD, so that
  // they never match the main thread's); this one for a rank alone.
  const Communicator& io() const;

 private:
  Communicator() = default;
  Communicator(const Communicator&) = default;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool mpi_ = false, cuda_aware_ = false, multiple_ = false;
  const void* comm_ = nullptr;  // the MPI_Comm (under MPI)
  std::shared_ptr<const Communicator> io_;
};

// Every rank learns whether any failed, and the first failing rank's message (in rank
// order): `failed` and `message` are this rank's; returns the agreed message, empty when
// none failed. Collective: the ranks call it at the same point of their work.
std::string first_failure(const Communicator& c, bool failed, const std::string& message);

// Combines a value computed on each rank with op, in rank order, the same result on every
// rank (a fold of the gathered values: deterministic for any op, not only MPI's own).
template <class T, class Op>
T combine_across_ranks(const Communicator& c, const T& local, Op op) {
  if (c.alone()) return local;
  std::vector<T> all(c.size());
  c.allgather(&local, all.data(), sizeof(T));
  T r = all[0];
  for (int p = 1; p < c.size(); ++p) r = op(r, all[p]);
  return r;
}

// The same for `count` values at once, element by element.
template <class T, class Op>
void combine_across_ranks(const Communicator& c, T* values, int count, Op op) {
  if (c.alone() || count == 0) return;
  std::vector<T> all(std::size_t(c.size()) * count);
  c.allgather(values, all.data(), sizeof(T) * count);
  for (int e = 0; e < count; ++e) {
    T r = all[e];
    for (int p = 1; p < c.size(); ++p) r = op(r, all[std::size_t(p) * count + e]);
    values[e] = r;
  }
}

}  // namespace bouss
