// Replays a fixed sequence of launches as a CUDA graph: the first run with a given key
// captures the launches and copies `work` issues on the backend's stream and instantiates
// them; every run (the first too) launches the graph. Removes the per-launch overhead
// that dominates small grids (coarse multigrid levels). On the CPU, or when disabled,
// `work` simply runs.
//
// `work` must issue only stream-ordered device work on that backend: kernels and
// copy_bytes_async with pinned host memory. Host computation, synchronising copies and
// reductions that return to the host inside it would run once, at capture, and never again
// (reduce_into, which leaves its result on the device, may be captured: a graph is
// captured again when the reductions' scratch memory has moved). Run inside another
// capture, `work` becomes part of that graph. Under several ranks only where the messages go
// by NCCL (grid/halo.hpp's exchanges then queue on the stream and are captured with the
// kernels), for work made with `across_ranks` (below), not in bouss bench's timed cost steps,
// and from a key's second run on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "grid/backend.hpp"

namespace bouss {

class CapturedWork {
 public:
  CapturedWork() = default;
  // `across_ranks`: the work exchanges halos (grid/halo.hpp) but combines nothing across the
  // ranks on the host (no collective reduction): then, under several ranks, it may be
  // captured where the messages go by NCCL.
  explicit CapturedWork(bool across_ranks) : across_ranks_(across_ranks) {}
  ~CapturedWork();
  CapturedWork(const CapturedWork&) = delete;
  CapturedWork& operator=(const CapturedWork&) = delete;

  void run(const Backend& backend, bool use_graph, std::uintptr_t key, const std::function<void()>& work);
  int graphs() const { return int(exec_.size()); }

 private:
  // The backend's memory a graph holds the address of: its reduction scratch and message
  // buffers when it was captured.
  struct Memory {
    void *scratch = nullptr, *send = nullptr, *receive = nullptr;
    bool operator==(const Memory& o) const { return scratch == o.scratch && send == o.send && receive == o.receive; }
  };
  struct Captured {
    void* exec;  // cudaGraphExec_t
    Memory memory;
  };
  std::map<std::uintptr_t, Captured> exec_;
  std::set<std::uintptr_t> warmed_;  // keys run once uncaptured (under several ranks)
  bool across_ranks_ = false;
};

}  // namespace bouss
