// The staging of asynchronous snapshots (paper 004 streams its output; so does bouss): a
// small ring of slots, each a buffer in the backend's memory, where a slab of a field is
// packed in the output precision by a kernel on the step's stream, and a pinned host buffer,
// into which it is copied on the backend's copy stream. The IO thread writes a slot's host
// buffer to the file once its copy has arrived (an event, not a device sync) and releases
// the slot. The time loop waits only when every slot is in flight, and then says so once,
// with the rate the writer keeps.
//
// On the CPU backend a slot is one host buffer: the pack is the copy.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "grid/backend.hpp"

namespace bouss {

// How a snapshot is cut: slabs of whole HDF5 chunks (whole z-planes) of about this many
// bytes, in this many slots. Enough in flight to keep the writer busy while the step runs,
// bounded whatever the grid (a full fp64 snapshot of 1024^3 is 43 GB).
constexpr std::size_t staging_slab_target_bytes = std::size_t(16) << 20;
constexpr int staging_min_slots = 4;
constexpr std::size_t staging_ring_cap_bytes = std::size_t(1) << 30;

// Slots for records that take `record_slots` slots of `slot_bytes` each: a whole record and
// one slab more, so that a record is queued without waiting while the writer still has the
// last one (measured on the H200: 4 slots of 16 MiB made a 67 MB record every 10 steps cost
// 34% of a 3.6 ms step), within 1 GiB (beyond that the run is bound by the disk anyway), and
// at least 4. Small records (a plane, the profiles: written every step or so, where one slow
// flush of the writer would stall the step) get room for 8 records, within 64 MiB.
constexpr int staging_small_records = 8;
constexpr std::size_t staging_small_cap_bytes = std::size_t(64) << 20;
inline int staging_slot_count(std::size_t slot_bytes, int record_slots) {
  double fit = double(record_slots) + 1;
  const double small = double(staging_small_records) * record_slots;
  if (small * double(slot_bytes) <= double(staging_small_cap_bytes)) fit = std::max(fit, small);
  const double cap = std::max<double>(staging_min_slots, std::floor(double(staging_ring_cap_bytes) / double(slot_bytes)));
  return int(std::max<double>(staging_min_slots, std::min(fit, cap)));
}

// Planes per slab for a field of `planes` z-planes of `plane_bytes` each, stored in chunks
// of `chunk_planes` planes: a whole number of chunks near the target, at least one.
inline int staging_slab_planes(std::size_t plane_bytes, int chunk_planes, int planes) {
  const std::size_t chunk = plane_bytes * std::size_t(chunk_planes);
  const std::size_t chunks = chunk >= staging_slab_target_bytes ? 1 : staging_slab_target_bytes / chunk;
  return int(std::min<std::size_t>(std::size_t(planes), chunks * std::size_t(chunk_planes)));
}

class StagingRing {
 public:
  struct Slot {
    void* device = nullptr;  // where the slab is packed (== host on the CPU)
    void* host = nullptr;    // pinned: where the IO thread reads it
    StreamEvent packed;      // on the step's stream, after the pack kernel
    StreamEvent copied;      // on the copy stream, after the copy to the host
  };

  StagingRing(const Backend& backend, std::size_t slot_bytes, int slots);
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // A free slot; waits while every slot is in flight (the first wait of the run is logged,
  // with the writer's rate so far).
  Slot& acquire();
  // Queues the copy of `bytes` of a packed slot to its host buffer (after the pack).
  void queue_copy(Slot& slot, std::size_t bytes);
  // From the IO thread: the slot's host data has been written (bytes of it).
  void release(Slot& slot, std::size_t bytes);

  std::size_t slot_bytes() const { return slot_bytes_; }
  int slots() const { return int(slots_.size()); }
  long waits() const;  // how often acquire() waited
  // Memory a ring takes: {on the backend, pinned on the host} (CPU: all on the host).
  static std::pair<double, double> memory(const Backend& backend, std::size_t slot_bytes, int slots);

 private:
  Backend backend_, host_;
  std::size_t slot_bytes_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> free_;
  mutable std::mutex lock_;
  std::condition_variable returned_;
  long waits_ = 0;
  double written_bytes_ = 0;
  std::chrono::steady_clock::time_point first_use_;
  bool used_ = false;
};

}  // namespace bouss
