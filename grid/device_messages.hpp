// How messages in a backend's memory travel between ranks: the halo exchange's
// (grid/halo.cu) and the direct solve's transposes (solver/direct/transpose_steps.cu). On the CPU
// backend, MPI. On CUDA one of three paths, chosen once per run and the same on every rank:
//   nccl: NCCL's send and receive on the backend's stream, from device memory, over NVLink
//     or the network as NCCL finds them (builds with NCCL; every rank on a GPU of its own,
//     since NCCL refuses two ranks on one GPU);
//   mpi: device buffers handed to a CUDA-aware MPI (Communicator::cuda_aware), after the
//     stream has finished packing them;
//   host: copied through page-locked host buffers and sent by MPI.
// BOUSS_MESSAGES=nccl|mpi|host in the environment asks for one (to measure them against each
// other: docs/mpi.md); unset, the first of nccl, mpi, host that this build and machine allow.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "grid/backend.hpp"

namespace bouss {

enum class MessagePath { cpu, nccl, mpi, host };

// The path of this backend's messages (collective on its first call under several ranks:
// every rank must ask at the same point, as every exchange does).
MessagePath message_path(const Backend& be);
std::string message_path_name(MessagePath p);

// One exchange step: send_bytes at send (backend memory) to rank dest while receiving
// recv_bytes from rank source into recv; either rank may be -1.
struct MessageStep {
  const void* send;
  std::size_t send_bytes;
  int dest;
  void* recv;
  std::size_t recv_bytes;
  int source;
  int tag;
};
// `count` steps at once (a halo's two directions): on NCCL one group (two messages to one
// peer are matched in the order given, so every rank lists its steps in the same order);
// otherwise the steps one after another. On return the received bytes are in the steps'
// recv for work queued after it on the backend's stream (and the send buffers may be reused
// by such work).
void sendrecv_on(const Backend& be, const MessageStep* steps, int count);
void sendrecv_on(const Backend& be, const void* send, std::size_t send_bytes, int dest, void* recv,
                 std::size_t recv_bytes, int source, int tag);
// Every rank's pieces to every rank (Communicator::alltoallv's layout), backend memory.
// NCCL's messages go on `stream` (one of the backend's: null for its own stream(), or its
// message_stream()); every other path waits for the backend's stream and returns done.
void alltoallv_on(const Backend& be, const void* send, const std::vector<std::size_t>& send_bytes, void* recv,
                  const std::vector<std::size_t>& recv_bytes, void* stream = nullptr);

// Every rank's `bytes` bytes at send (backend memory), in rank order, into recv (size() *
// bytes), ready for work queued after it on the backend's stream: NCCL's all-gather on the
// stream, else MPI's (through the host where MPI cannot read device memory).
void allgather_on(const Backend& be, const void* send, std::size_t bytes, void* recv);

// `bytes` bytes at p (backend memory) from rank root to every rank, ready for work queued
// after it on the backend's stream (NCCL's broadcast on the stream, else through the host).
void broadcast_on(const Backend& be, void* p, std::size_t bytes, int root);

// The largest of every rank's `count` doubles at p (backend memory), element by element, on
// every rank, ready for work queued after it on the backend's stream: NCCL's all-reduce on
// the stream (nothing waits on the host: a step that holds it may be one CUDA graph), else
// through the host. The values must not be NaN (NCCL's max may drop one): a caller maps a
// NaN it must keep to +inf first (reduce_into does).
void allreduce_max_on(const Backend& be, double* p, int count);
// The sum, likewise (NCCL's order of summation; through the host in rank order).
void allreduce_sum_on(const Backend& be, double* p, int count);

// Device memory for the message buffers (Backend::buffer's send and receive) of a backend
// whose messages go by NCCL across ranks: NCCL's own allocator (CUDA's virtual memory), so
// that NCCL registers the buffers of the sends captured in a CUDA graph and writes straight
// into the receiver's buffer over NVLink instead of through its own staging buffers (NCCL's
// user buffer registration; every send and receive of bouss goes through these buffers, so
// every rank's are registered alike, as NCCL requires). On two H200s the direct solve's step
// took 10.56 ms against 11.20 (1024x512x256, docs/scaling.md).
bool message_buffers_by_nccl(const Backend& be);  // ranks across GPUs, messages by NCCL
void* allocate_message_memory(std::size_t bytes);  // throws where it cannot
void release_message_memory(void* p);

}  // namespace bouss
