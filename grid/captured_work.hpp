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
// capture, `work` becomes part of that graph.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "grid/backend.hpp"

namespace bouss {

class CapturedWork {
 public:
  CapturedWork() = default;
  ~CapturedWork();
  CapturedWork(const CapturedWork&) = delete;
  CapturedWork& operator=(const CapturedWork&) = delete;

  void run(const Backend& backend, bool use_graph, std::uintptr_t key, const std::function<void()>& work);
  int graphs() const { return int(exec_.size()); }

 private:
  struct Captured {
    void* exec;     // cudaGraphExec_t
    void* scratch;  // the backend's reduction scratch when it was captured
  };
  std::map<std::uintptr_t, Captured> exec_;
};

}  // namespace bouss
