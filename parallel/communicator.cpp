#include "parallel/communicator.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#ifdef BOUSS_HAVE_MPI
// MPI's C API alone (Open MPI's deprecated C++ bindings are not linked).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "parallel/rank_costs.hpp"

namespace bouss {

namespace {
// A reduction's or agreement's wall time on this rank (waiting for the slowest rank
// included), added to rank_costs() where bench's cost steps time them.
struct ReductionClock {
  const bool timed = rank_costs().timed;
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  ~ReductionClock() {
    if (!timed) return;
    RankCosts& c = rank_costs();
    c.reduction_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ++c.reductions;
  }
};
#ifdef BOUSS_HAVE_MPI
// Started by an MPI launcher (Open MPI's mpirun, PMI or PMIx): only then is MPI initialised,
// so that a plain `bouss run` neither pays for MPI's start-up nor depends on its daemons.
bool under_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}
void check(int e, const char* what) {
  if (e != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(e, text, &length);
    throw std::runtime_error(std::string("MPI error in ") + what + ": " + std::string(text, length));
  }
}
int count_of(std::size_t bytes, const char* what) {
  if (bytes > std::size_t(std::numeric_limits<int>::max()))
    throw std::runtime_error(std::string(what) + ": a message over 2 GiB");
  return int(bytes);
}
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif
}  // namespace

bool Communicator::mpi_compiled() {
#ifdef BOUSS_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::shared_ptr<const Communicator> Communicator::self() {
  static const std::shared_ptr<const Communicator> one(new Communicator());
  return one;
}

std::shared_ptr<const Communicator> Communicator::world() {
#ifdef BOUSS_HAVE_MPI
  static const std::shared_ptr<const Communicator> w = []() -> std::shared_ptr<const Communicator> {
    if (!under_launcher()) return self();
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      // The main thread calls MPI, and the IO thread at the same time (the collective writes
      // of the files every rank writes, on a communicator of their own: io()).
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
      std::atexit(finalize_at_exit);
    }
    auto* c = new Communicator();
    c->mpi_ = true;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    c->multiple_ = level >= MPI_THREAD_MULTIPLE;
    c->comm_ = new MPI_Comm(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size_);
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    MPI_Comm_rank(node, &c->local_rank_);
    MPI_Comm_free(&node);
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    c->cuda_aware_ = MPIX_Query_cuda_support() == 1;  // the library loaded at run time decides
#endif
    // The IO thread's communicator: the same ranks, its own context, so that its collectives
    // never match the main thread's.
    auto* io = new Communicator(*c);
    auto* dup = new MPI_Comm;
    check(MPI_Comm_dup(MPI_COMM_WORLD, dup), "MPI_Comm_dup");
    io->comm_ = dup;
    c->io_ = std::shared_ptr<const Communicator>(io);
    return std::shared_ptr<const Communicator>(c);
  }();
  return w;
#else
  return self();
#endif
}

const void* Communicator::mpi_comm() const { return mpi_ ? comm_ : nullptr; }

const Communicator& Communicator::io() const { return io_ ? *io_ : *this; }

void Communicator::allgather(const void* src, void* dst, std::size_t bytes) const {
  if (!mpi_) {
    if (dst != src) std::memcpy(dst, src, bytes);
    return;
  }
#ifdef BOUSS_HAVE_MPI
  const ReductionClock clock;  // reductions combine across the ranks through here
  check(MPI_Allgather(src, count_of(bytes, "allgather"), MPI_BYTE, dst, int(bytes), MPI_BYTE, *static_cast<const MPI_Comm*>(comm_)),
        "MPI_Allgather");
#endif
}

void Communicator::broadcast(void* p, std::size_t bytes, int root) const {
  if (!mpi_) return;
#ifdef BOUSS_HAVE_MPI
  check(MPI_Bcast(p, count_of(bytes, "broadcast"), MPI_BYTE, root, *static_cast<const MPI_Comm*>(comm_)), "MPI_Bcast");
#else
  (void)p, (void)bytes, (void)root;
#endif
}

void Communicator::sendrecv(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes,
                            int source, int tag) const {
  if (!mpi_) {
    // One rank: its own neighbour (a periodic axis), or none.
    if (dest == 0 && source == 0) {
      if (send_bytes != recv_bytes) throw std::logic_error("sendrecv to itself: sizes differ");
      std::memmove(recv, send, send_bytes);
    }
    return;
  }
#ifdef BOUSS_HAVE_MPI
  check(MPI_Sendrecv(send, count_of(send_bytes, "sendrecv"), MPI_BYTE, dest < 0 ? MPI_PROC_NULL : dest, tag, recv,
                     count_of(recv_bytes, "sendrecv"), MPI_BYTE, source < 0 ? MPI_PROC_NULL : source, tag,
                     *static_cast<const MPI_Comm*>(comm_), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
#endif
}

void Communicator::gatherv(const void* send, std::size_t bytes, std::vector<char>* recv_on_root, int root) const {
  if (!mpi_) {
    recv_on_root->assign(static_cast<const char*>(send), static_cast<const char*>(send) + bytes);
    return;
  }
#ifdef BOUSS_HAVE_MPI
  const int mine = count_of(bytes, "gatherv");
  std::vector<int> counts(size_), displs(size_);
  check(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, *static_cast<const MPI_Comm*>(comm_)), "MPI_Gather");
  if (rank_ == root) {
    std::size_t total = 0;
    for (int p = 0; p < size_; ++p) {
      displs[p] = count_of(total, "gatherv");
      total += std::size_t(counts[p]);
    }
    count_of(total, "gatherv");
    recv_on_root->resize(total);
  }
  check(MPI_Gatherv(send, mine, MPI_BYTE, rank_ == root ? recv_on_root->data() : nullptr, counts.data(),
                    displs.data(), MPI_BYTE, root, *static_cast<const MPI_Comm*>(comm_)),
        "MPI_Gatherv");
#endif
}

void Communicator::alltoallv(const void* send, const std::vector<std::size_t>& send_bytes, void* recv,
                             const std::vector<std::size_t>& recv_bytes) const {
  if (int(send_bytes.size()) != size_ || int(recv_bytes.size()) != size_)
    throw std::invalid_argument("alltoallv: expected a count for every rank");
  if (!mpi_) {
    if (send_bytes[0] != recv_bytes[0]) throw std::invalid_argument("alltoallv: one rank sends what it receives");
    std::memcpy(recv, send, send_bytes[0]);
    return;
  }
#ifdef BOUSS_HAVE_MPI
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  std::size_t s_at = 0, r_at = 0;
  for (int p = 0; p < size_; ++p) {
    sc[p] = count_of(send_bytes[p], "alltoallv"), sd[p] = count_of(s_at, "alltoallv");
    rc[p] = count_of(recv_bytes[p], "alltoallv"), rd[p] = count_of(r_at, "alltoallv");
    s_at += send_bytes[p], r_at += recv_bytes[p];
  }
  check(MPI_Alltoallv(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(), rd.data(), MPI_BYTE, *static_cast<const MPI_Comm*>(comm_)),
        "MPI_Alltoallv");
#endif
}

unsigned Communicator::any_bits(unsigned mine) const {
  if (!mpi_) return mine;
#ifdef BOUSS_HAVE_MPI
  const ReductionClock clock;
  unsigned out = 0;
  check(MPI_Allreduce(&mine, &out, 1, MPI_UNSIGNED, MPI_BOR, *static_cast<const MPI_Comm*>(comm_)), "MPI_Allreduce");
  return out;
#else
  return mine;
#endif
}

std::string first_failure(const Communicator& c, bool failed, const std::string& message) {
  if (c.alone()) return failed ? message : std::string();
  const int first = combine_across_ranks(c, failed ? c.rank() : c.size(), [](int a, int b) { return a < b ? a : b; });
  if (first == c.size()) return {};
  std::string text = c.rank() == first ? message : std::string();
  std::size_t size = text.size();
  c.broadcast(&size, sizeof size, first);
  text.resize(size);
  c.broadcast(text.data(), size, first);
  return text.empty() ? "rank " + std::to_string(first) + " failed" : text;
}

std::string Communicator::describe() const {
  if (size_ == 1) return "";
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_);
}

}  // namespace bouss
