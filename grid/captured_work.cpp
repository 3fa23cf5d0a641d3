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
  for (auto& [key, exec] : exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec));
#endif
}

void CapturedWork::run(const Backend& backend, bool use_graph, std::uintptr_t key, const std::function<void()>& work) {
#ifdef BOUSS_HAVE_CUDA
  if (use_graph && backend.is_cuda()) {
    const auto stream = static_cast<cudaStream_t>(backend.stream());
    auto it = exec_.find(key);
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
      it = exec_.emplace(key, exec).first;
    }
    check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(it->second), stream), "launch");
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
