// Where fields live and kernels run: the host (OpenMP) or one CUDA device.
// Chosen at run time; a build without CUDA has the CPU backend alone.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "parallel/communicator.hpp"

namespace bouss {

enum class BackendKind { cpu, cuda };

class Backend {
 public:
  static Backend cpu();
  // Throws std::runtime_error when this build has no CUDA or no device is present.
  static Backend cuda(int device = 0);
  // "auto" (CUDA when a device is present, else CPU), "cuda" or "cpu".
  static Backend from_name(const std::string& name);
  static bool cuda_compiled();
  static bool cuda_available();  // compiled with CUDA and a device is present
  static int cuda_devices();     // the devices present (0 without CUDA)

  BackendKind kind() const { return kind_; }
  bool is_cuda() const { return kind_ == BackendKind::cuda; }
  std::string name() const;     // "cpu" or "cuda"
  std::string describe() const; // device name and memory, or CPU threads

  // Memory this backend can still allocate: free device memory (CUDA), or the host's
  // available memory (MemAvailable of /proc/meminfo; the CPU backend).
  std::size_t available_bytes() const;
  static std::size_t host_available_bytes();

  void* allocate(std::size_t bytes) const;  // 256-byte aligned (host memory pinned when asked)
  void deallocate(void* p) const;
  void synchronize() const;
  // The CUDA stream every launch and copy of this backend is ordered on (a cudaStream_t;
  // null on the CPU). One stream keeps the step in order and lets it be graph-captured.
  void* stream() const;
  // A second stream for device-to-host copies of output, so that they overlap the step's
  // kernels (created at first use; null on the CPU).
  void* copy_stream() const;
  // A third stream for the direct solve's all-to-alls, so that each piece's messages travel
  // while the next piece is transformed (solver/direct/pencil_transform.hpp; created at first
  // use; null on the CPU).
  void* message_stream() const;
  // A CPU backend whose allocations are page-locked, for host levels that CUDA graphs
  // copy to and from. The same as cpu() in a build without CUDA.
  static Backend cpu_pinned();
  // State memory for reductions on this backend, grown as needed and kept.
  void* scratch(std::size_t bytes) const;
  std::size_t scratch_bytes() const;  // its size now
  // Message buffers of the halo exchange, grown as needed and kept: in this backend's
  // memory (NCCL's, where the ranks' messages go by NCCL: grid/device_messages.hpp), and,
  // for a CUDA backend whose MPI cannot read device memory, page-locked host memory to
  // stage them through. On a CUDA backend of several ranks a device buffer asks the message
  // path, which is collective on its first call: every rank asks at the same point, as the
  // exchanges that use the buffers do.
  enum class Buffer { send, receive, send_host, receive_host };
  void* buffer(Buffer which, std::size_t bytes) const;

  // The ranks this backend computes with (one rank unless with_ranks set them): every
  // reduction over its fields is combined across them (grid/reduce.hpp), so that a sum or a
  // maximum is over the whole domain whichever part of it this rank holds.
  const Communicator& ranks() const { return ranks_ ? *ranks_ : *Communicator::self(); }
  // The same device, stream and scratch, combining across `ranks` (Communicator::self():
  // this rank alone, for a problem gathered onto it).
  Backend with_ranks(std::shared_ptr<const Communicator> ranks) const {
    Backend b = *this;
    b.ranks_ = std::move(ranks);
    return b;
  }

  bool operator==(const Backend& o) const { return kind_ == o.kind_; }
  bool operator!=(const Backend& o) const { return !(*this == o); }

 private:
  struct State;
  BackendKind kind_ = BackendKind::cpu;
  std::shared_ptr<State> state_;
  std::shared_ptr<const Communicator> ranks_;
};

// Copies bytes between any two backends' memories (host<->device, device<->device),
// returning when the copy is done.
void copy_bytes(void* dst, const Backend& dst_backend, const void* src,
                const Backend& src_backend, std::size_t bytes);
// The same, ordered on the CUDA side's stream without waiting (capturable in a graph when
// host memory is pinned), or on its copy stream. On the CPU alone it is a plain copy.
void copy_bytes_async(void* dst, const Backend& dst_backend, const void* src,
                      const Backend& src_backend, std::size_t bytes, bool on_copy_stream = false);

// Throws std::runtime_error with `what` (the kernel), `field` (when given) and the CUDA
// error string if the last launch on `backend` failed. With BOUSS_CHECK_KERNELS=1 in the
// environment it also waits for the kernel to finish (outside graph capture), so that a
// fault inside a kernel is reported with the kernel's and the field's names instead of
// surfacing later at an unrelated copy. Slow: for finding where a fault comes from.
void check_launch(const char* what, const Backend& backend, const char* field = nullptr);
bool check_kernels_enabled();

// Bytes currently allocated through Backend::allocate, on CUDA devices and on the host
// (pinned included): what the memory estimate of a run is checked against.
std::size_t allocated_bytes(BackendKind kind);

// A point in a backend's stream: record() marks it, ready() asks without waiting whether
// the work before it is done, wait() blocks the host until it is (spinning for a point of
// the step's stream, sleeping for one of the copy stream: an event is recorded on one kind
// of stream only). On the CPU every recorded point is done at once.
class StreamEvent {
 public:
  StreamEvent() = default;
  ~StreamEvent();
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;
  // Marks the backend's stream (or its copy stream) at this point.
  void record(const Backend& backend, bool on_copy_stream = false);
  bool ready() const;
  void wait() const;
  // Makes the backend's copy stream wait for this point before its later work.
  void make_copy_stream_wait(const Backend& backend) const;
  // The same for any of the backend's streams (stream(), copy_stream(), message_stream()):
  // marks that stream here, or makes it wait for this point.
  void record_on(const Backend& backend, void* stream);
  void make_wait(const Backend& backend, void* stream) const;

 private:
  void* event_ = nullptr;  // cudaEvent_t, created at the first record on a CUDA backend
  bool recorded_cuda_ = false;
};

// Elapsed time of a region: CUDA events on the GPU, a steady clock on the CPU.
class RegionTimer {
 public:
  explicit RegionTimer(const Backend& b);
  ~RegionTimer();
  RegionTimer(const RegionTimer&) = delete;
  RegionTimer& operator=(const RegionTimer&) = delete;
  void start();
  double stop_ms();  // waits for the region to finish

 private:
  Backend backend_;
  void* begin_ = nullptr;
  void* end_ = nullptr;
  double host_start_ = 0.0;
};

// Median milliseconds of `repeats` runs of `work`, after one untimed warm-up run.
double median_ms(const Backend& backend, int repeats, const std::function<void()>& work);

}  // namespace bouss
