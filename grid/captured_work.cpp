#include "grid/captured_work.hpp"

#include <stdexcept>
#include <string>

#include "grid/device_messages.hpp"
#include "parallel/rank_costs.hpp"

#ifdef BOUSS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace bouss {

#ifdef BOUSS_HAVE_CUDA
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA graph: ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace
#endif

CapturedWork::~CapturedWork() {
#ifdef BOUSS_HAVE_CUDA
  for (auto& [key, captured] : exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(captured.exec));
#endif
}

void CapturedWork::run(const Backend& backend, bool use_graph, std::uintptr_t key, const std::function<void()>& work) {
#ifdef BOUSS_HAVE_CUDA
  // Work of several ranks exchanges messages: a graph holds NCCL's (queued on the stream)
  // but not MPI's, nor the exchanges that bouss bench's cost steps time and wait for.
  const bool ranks_alone = backend.ranks().alone();
  const bool capturable = ranks_alone || (across_ranks_ && backend.is_cuda() &&
                                          message_path(backend) == MessagePath::nccl && !rank_costs().timed);
  if (use_graph && backend.is_cuda() && capturable) {
    const auto stream = static_cast<cudaStream_t>(backend.stream());
    // Inside another capture (a whole step captured around this work): part of that graph.
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &capturing), "capture status");
    if (capturing != cudaStreamCaptureStatusNone) {
      work();
      return;
    }
    // A graph holds the addresses of the reductions' scratch memory and of the message
    // buffers at its capture: captured again once a larger reduction or message has moved them.
    const Memory memory{backend.scratch(0), backend.buffer(Backend::Buffer::send, 0),
                        backend.buffer(Backend::Buffer::receive, 0)};
    auto it = exec_.find(key);
    if (it != exec_.end() && !(it->second.memory == memory)) {
      cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(it->second.exec));
      exec_.erase(it);
      it = exec_.end();
    }
    // Under ranks the first run of a key runs uncaptured: it grows the message buffers to
    // their size (an allocation cannot happen inside a capture), and the next one captures.
    if (it == exec_.end() && !ranks_alone && warmed_.insert(key).second) {
      work();
      return;
    }
    if (it == exec_.end()) {
      check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
      try {
        work();
      } catch (...) {
        cudaGraph_t broken = nullptr;
        cudaStreamEndCapture(stream, &broken);
        if (broken) cudaGraphDestroy(broken);
        throw;
      }
      cudaGraph_t graph = nullptr;
      check(cudaStreamEndCapture(stream, &graph), "end capture");
      cudaGraphExec_t exec = nullptr;
      const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
      cudaGraphDestroy(graph);
      check(e, "instantiate");
      // Memory moved during the capture (a message larger than the warm-up's): the graph holds
      // a freed address; not launched, the work runs as launches and the next run captures.
      const Memory after{backend.scratch(0), backend.buffer(Backend::Buffer::send, 0),
                         backend.buffer(Backend::Buffer::receive, 0)};
      if (!(after == memory)) {
        cudaGraphExecDestroy(exec);
        work();
        return;
      }
      it = exec_.emplace(key, Captured{exec, memory}).first;
    }
    check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(it->second.exec), stream), "launch");
    if (check_kernels_enabled()) check(cudaStreamSynchronize(stream), "a kernel of the replayed graph");
    return;
  }
#else
  (void)backend;
  (void)use_graph;
  (void)key;
#endif
  work();
}

}  // namespace bouss
