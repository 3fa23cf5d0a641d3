#include "grid/captured_work.hpp"

#include <stdexcept>
#include <string>

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
  // Work of several ranks calls MPI, which a graph cannot hold.
  if (use_graph && backend.is_cuda() && backend.ranks().alone()) {
    const auto stream = static_cast<cudaStream_t>(backend.stream());
    // Inside another capture (a whole step captured around this work): part of that graph.
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &capturing), "capture status");
    if (capturing != cudaStreamCaptureStatusNone) {
      work();
      return;
    }
    // A graph holds the address of the reductions' scratch memory at its capture: captured
    // again once a larger reduction has moved it.
    void* const scratch = backend.scratch(0);
    auto it = exec_.find(key);
    if (it != exec_.end() && it->second.scratch != scratch) {
      cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(it->second.exec));
      exec_.erase(it);
      it = exec_.end();
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
      it = exec_.emplace(key, Captured{exec, scratch}).first;
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
