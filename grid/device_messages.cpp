#include "grid/device_messages.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#ifdef BOUSS_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#ifdef BOUSS_HAVE_NCCL
#include <nccl.h>
#endif

namespace bouss {
namespace {

#ifdef BOUSS_HAVE_NCCL
void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

// The process's NCCL communicator over the ranks (one rank a process, one GPU a rank), made on
// the first NCCL message and kept to the end of the run.
ncclComm_t nccl_comm(const Communicator& ranks) {
  static ncclComm_t comm = nullptr;
  if (comm) return comm;
  ncclUniqueId id{};
  if (ranks.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  ranks.broadcast(&id, sizeof id, 0);
  check_nccl(ncclCommInitRank(&comm, ranks.size(), id, ranks.rank()), "ncclCommInitRank");
  return comm;
}

// Whether every rank holds a GPU of its own (NCCL refuses two ranks on one GPU): the ranks'
// device UUIDs, gathered.
bool gpus_of_their_own(const Communicator& ranks) {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  char mine[16];
  static_assert(sizeof(prop.uuid.bytes) == 16, "a CUDA UUID has 16 bytes");
  for (int i = 0; i < 16; ++i) mine[i] = prop.uuid.bytes[i];
  std::vector<char> all(std::size_t(ranks.size()) * 16);
  ranks.allgather(mine, all.data(), 16);
  for (int p = 0; p < ranks.size(); ++p)
    for (int q = p + 1; q < ranks.size(); ++q)
      if (std::equal(all.begin() + 16 * p, all.begin() + 16 * (p + 1), all.begin() + 16 * q)) return false;
  return true;
}
#endif

// BOUSS_MESSAGES, checked on every backend (on the CPU's a valid value changes nothing:
// its messages are host memory already).
std::string asked_path() {
  const char* asked = std::getenv("BOUSS_MESSAGES");
  const std::string want = asked ? asked : "";
  if (!want.empty() && want != "nccl" && want != "mpi" && want != "host")
    throw std::invalid_argument("BOUSS_MESSAGES=" + want + ": expected nccl, mpi or host");
  return want;
}

MessagePath choose(const Backend& be) {
  const Communicator& ranks = be.ranks();
  const std::string want = asked_path();
#ifdef BOUSS_HAVE_NCCL
  const bool nccl = !ranks.alone() && gpus_of_their_own(ranks);  // collective: every rank asks
#else
  const bool nccl = false;
#endif
  if (want == "nccl" && !nccl)
    throw std::invalid_argument("BOUSS_MESSAGES=nccl: this build has no NCCL, or ranks share a GPU (NCCL refuses that)");
  if (want == "mpi" && !ranks.cuda_aware())
    throw std::invalid_argument("BOUSS_MESSAGES=mpi: the MPI library does not read device memory (not CUDA-aware)");
  if (want == "host") return MessagePath::host;
  if (want == "mpi") return MessagePath::mpi;
  if (nccl) return MessagePath::nccl;
  return ranks.cuda_aware() ? MessagePath::mpi : MessagePath::host;
}

}  // namespace

MessagePath message_path(const Backend& be) {
  static const std::string checked = asked_path();
  if (!be.is_cuda()) return MessagePath::cpu;
  static const MessagePath path = choose(be);
  return path;
}

std::string message_path_name(MessagePath p) {
  switch (p) {
    case MessagePath::cpu: return "MPI (host memory)";
    case MessagePath::nccl: return "NCCL (device memory)";
    case MessagePath::mpi: return "CUDA-aware MPI (device memory)";
    case MessagePath::host: return "MPI through page-locked host buffers";
  }
  return "?";
}

void sendrecv_on(const Backend& be, const MessageStep* steps, int count) {
  const Communicator& ranks = be.ranks();
  const MessagePath path = message_path(be);
#ifdef BOUSS_HAVE_NCCL
  if (path == MessagePath::nccl) {
    ncclComm_t comm = nccl_comm(ranks);
    const auto stream = static_cast<cudaStream_t>(be.stream());
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int i = 0; i < count; ++i) {
      const MessageStep& m = steps[i];
      if (m.dest >= 0 && m.send_bytes) check_nccl(ncclSend(m.send, m.send_bytes, ncclChar, m.dest, comm, stream), "ncclSend");
      if (m.source >= 0 && m.recv_bytes)
        check_nccl(ncclRecv(m.recv, m.recv_bytes, ncclChar, m.source, comm, stream), "ncclRecv");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    return;
  }
#endif
  if (path == MessagePath::mpi) be.synchronize();  // the packing kernels have written the send buffers
  for (int i = 0; i < count; ++i) {
    const MessageStep& m = steps[i];
    const std::size_t sent = m.dest >= 0 ? m.send_bytes : 0, received = m.source >= 0 ? m.recv_bytes : 0;
    if (path != MessagePath::host) {
      ranks.sendrecv(m.send, sent, m.dest, m.recv, received, m.source, m.tag);
      continue;
    }
    void* host_send = be.buffer(Backend::Buffer::send_host, m.send_bytes);
    void* host_recv = be.buffer(Backend::Buffer::receive_host, m.recv_bytes);
    if (sent) copy_bytes(host_send, Backend::cpu(), m.send, be, sent);
    ranks.sendrecv(host_send, sent, m.dest, host_recv, received, m.source, m.tag);
    if (received) copy_bytes(m.recv, be, host_recv, Backend::cpu(), received);
  }
}

void sendrecv_on(const Backend& be, const void* send, std::size_t send_bytes, int dest, void* recv,
                 std::size_t recv_bytes, int source, int tag) {
  const MessageStep step{send, send_bytes, dest, recv, recv_bytes, source, tag};
  sendrecv_on(be, &step, 1);
}

void alltoallv_on(const Backend& be, const void* send, const std::vector<std::size_t>& send_bytes, void* recv,
                  const std::vector<std::size_t>& recv_bytes, void* on) {
  (void)on;  // NCCL's alone
  const Communicator& ranks = be.ranks();
  std::size_t sent = 0, received = 0;
  for (int p = 0; p < ranks.size(); ++p) sent += send_bytes[p], received += recv_bytes[p];
  switch (message_path(be)) {
    case MessagePath::cpu:
      ranks.alltoallv(send, send_bytes, recv, recv_bytes);
      return;
    case MessagePath::nccl: {
#ifdef BOUSS_HAVE_NCCL
      ncclComm_t comm = nccl_comm(ranks);
      const auto stream = static_cast<cudaStream_t>(on ? on : be.stream());
      const char* s = static_cast<const char*>(send);
      char* r = static_cast<char*>(recv);
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int p = 0; p < ranks.size(); ++p) {
        if (send_bytes[p]) check_nccl(ncclSend(s, send_bytes[p], ncclChar, p, comm, stream), "ncclSend");
        if (recv_bytes[p]) check_nccl(ncclRecv(r, recv_bytes[p], ncclChar, p, comm, stream), "ncclRecv");
        s += send_bytes[p], r += recv_bytes[p];
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
#endif
      return;
    }
    case MessagePath::mpi:
      be.synchronize();
      ranks.alltoallv(send, send_bytes, recv, recv_bytes);
      return;
    case MessagePath::host: {
      void* host_send = be.buffer(Backend::Buffer::send_host, sent);
      void* host_recv = be.buffer(Backend::Buffer::receive_host, received);
      copy_bytes(host_send, Backend::cpu(), send, be, sent);
      ranks.alltoallv(host_send, send_bytes, host_recv, recv_bytes);
      copy_bytes(recv, be, host_recv, Backend::cpu(), received);
      return;
    }
  }
}

namespace {
// NCCL's all-reduce of doubles on the stream where the messages go by NCCL, else through the
// host in rank order.
template <class Op>
void allreduce_on(const Backend& be, double* p, int count, Op op, int nccl_op) {
  const Communicator& ranks = be.ranks();
  if (ranks.alone() || count == 0) return;
  const MessagePath path = message_path(be);
#ifdef BOUSS_HAVE_NCCL
  if (path == MessagePath::nccl) {
    check_nccl(ncclAllReduce(p, p, std::size_t(count), ncclDouble, ncclRedOp_t(nccl_op), nccl_comm(ranks),
                             static_cast<cudaStream_t>(be.stream())),
               "ncclAllReduce");
    return;
  }
#else
  (void)nccl_op;
#endif
  if (path == MessagePath::cpu) return combine_across_ranks(ranks, p, count, op);
  std::vector<double> host(static_cast<std::size_t>(count));
  copy_bytes(host.data(), Backend::cpu(), p, be, host.size() * sizeof(double));
  combine_across_ranks(ranks, host.data(), count, op);
  copy_bytes(p, be, host.data(), Backend::cpu(), host.size() * sizeof(double));
}
#ifdef BOUSS_HAVE_NCCL
constexpr int nccl_max = ncclMax, nccl_sum = ncclSum;
#else
constexpr int nccl_max = 0, nccl_sum = 0;
#endif
}  // namespace

void allreduce_max_on(const Backend& be, double* p, int count) {
  allreduce_on(be, p, count, [](double a, double b) { return a > b ? a : b; }, nccl_max);
}

void allreduce_sum_on(const Backend& be, double* p, int count) {
  allreduce_on(be, p, count, [](double a, double b) { return a + b; }, nccl_sum);
}

void allgather_on(const Backend& be, const void* send, std::size_t bytes, void* recv) {
  const Communicator& ranks = be.ranks();
  const std::size_t all = bytes * std::size_t(ranks.size());
  switch (message_path(be)) {
    case MessagePath::cpu:
      ranks.allgather(send, recv, bytes);
      return;
    case MessagePath::nccl:
#ifdef BOUSS_HAVE_NCCL
      check_nccl(ncclAllGather(send, recv, bytes, ncclChar, nccl_comm(ranks), static_cast<cudaStream_t>(be.stream())),
                 "ncclAllGather");
#endif
      return;
    case MessagePath::mpi:
      be.synchronize();
      ranks.allgather(send, recv, bytes);
      return;
    case MessagePath::host: {
      void* host_send = be.buffer(Backend::Buffer::send_host, bytes);
      void* host_recv = be.buffer(Backend::Buffer::receive_host, all);
      copy_bytes(host_send, Backend::cpu(), send, be, bytes);
      ranks.allgather(host_send, host_recv, bytes);
      copy_bytes(recv, be, host_recv, Backend::cpu(), all);
      return;
    }
  }
}

bool message_buffers_by_nccl(const Backend& be) {
  return be.is_cuda() && !be.ranks().alone() && message_path(be) == MessagePath::nccl;
}

void* allocate_message_memory(std::size_t bytes) {
  void* p = nullptr;
#ifdef BOUSS_HAVE_NCCL
  check_nccl(ncclMemAlloc(&p, bytes), "ncclMemAlloc (message buffers)");
#else
  (void)bytes;
  throw std::logic_error("allocate_message_memory: this build has no NCCL");
#endif
  return p;
}

void release_message_memory(void* p) {
#ifdef BOUSS_HAVE_NCCL
  if (p) ncclMemFree(p);
#else
  (void)p;
#endif
}

void broadcast_on(const Backend& be, void* p, std::size_t bytes, int root) {
  const Communicator& ranks = be.ranks();
  if (ranks.alone() || bytes == 0) return;
  const MessagePath path = message_path(be);
#ifdef BOUSS_HAVE_NCCL
  if (path == MessagePath::nccl) {
    check_nccl(ncclBroadcast(p, p, bytes, ncclChar, root, nccl_comm(ranks), static_cast<cudaStream_t>(be.stream())),
               "ncclBroadcast");
    return;
  }
#endif
  if (path == MessagePath::cpu) return ranks.broadcast(p, bytes, root);
  std::vector<char> host(bytes);
  copy_bytes(host.data(), Backend::cpu(), p, be, bytes);
  ranks.broadcast(host.data(), bytes, root);
  copy_bytes(p, be, host.data(), Backend::cpu(), bytes);
}

}  // namespace bouss
