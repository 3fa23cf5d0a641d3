#include "grid/backend.hpp"

#include <algorithm>
#include <chrono>
#include <vector>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef BOUSS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace bouss {

namespace {
#ifdef BOUSS_HAVE_CUDA
void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so that it is not reported again later
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
  }
}
#endif
double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

// State shared by the copies of one backend: its stream, pinned-ness, reduction scratch.
struct Backend::State {
  BackendKind kind;
  bool pinned = false;
  void* stream = nullptr;
  void* ptr = nullptr;
  std::size_t bytes = 0;
  explicit State(BackendKind k) : kind(k) {}
  ~State() {
#ifdef BOUSS_HAVE_CUDA
    if (kind == BackendKind::cuda) {
      if (ptr) cudaFree(ptr);
      if (stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
      return;
    }
#endif
    std::free(ptr);
  }
};

Backend Backend::cpu() {
  Backend b;
  b.kind_ = BackendKind::cpu;
  b.state_ = std::make_shared<State>(BackendKind::cpu);
  return b;
}

Backend Backend::cpu_pinned() {
  Backend b = cpu();
  b.state_->pinned = cuda_available();
  return b;
}

void* Backend::stream() const { return state_->stream; }

bool Backend::cuda_compiled() {
#ifdef BOUSS_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

bool Backend::cuda_available() {
#ifdef BOUSS_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return false;
  }
  return count > 0;
#else
  return false;
#endif
}

Backend Backend::cuda(int device) {
#ifdef BOUSS_HAVE_CUDA
  if (!cuda_available()) throw std::runtime_error("backend cuda: no CUDA device is present");
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  Backend b;
  b.kind_ = BackendKind::cuda;
  b.state_ = std::make_shared<State>(BackendKind::cuda);
  cudaStream_t s;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  b.state_->stream = s;
  return b;
#else
  (void)device;
  throw std::runtime_error("backend cuda: this build of bouss has no CUDA (nvcc was not found at configure time)");
#endif
}

Backend Backend::from_name(const std::string& name) {
  if (name == "cpu") return cpu();
  if (name == "cuda") return cuda();
  if (name == "auto") return cuda_available() ? cuda() : cpu();
  throw std::runtime_error("unknown backend \"" + name + "\": expected auto, cuda or cpu");
}

std::string Backend::name() const { return is_cuda() ? "cuda" : "cpu"; }

std::string Backend::describe() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp p{};
    check_cuda(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
    return std::string("cuda: ") + p.name + " (sm_" + std::to_string(p.major) +
           std::to_string(p.minor) + ", " + std::to_string(p.totalGlobalMem >> 30) + " GiB)";
  }
#endif
#ifdef _OPENMP
  return "cpu: " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
#else
  return "cpu: 1 thread (built without OpenMP)";
#endif
}

void* Backend::allocate(std::size_t bytes) const {
  if (bytes == 0) bytes = 256;
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");  // 256-byte aligned
    return p;
  }
  if (state_->pinned) {
    void* p = nullptr;
    check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost");  // page-aligned
    return p;
  }
#endif
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::bad_alloc();
  return p;
}

void Backend::deallocate(void* p) const {
  if (!p) return;
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    cudaFree(p);
    return;
  }
  if (state_->pinned) {
    cudaFreeHost(p);
    return;
  }
#endif
  std::free(p);
}

void Backend::synchronize() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream())), "cudaStreamSynchronize");
#endif
}

void* Backend::scratch(std::size_t bytes) const {
  State& s = *state_;
  if (bytes > s.bytes) {
    deallocate(s.ptr);
    s.ptr = nullptr;
    s.bytes = 0;
    s.ptr = allocate(bytes);
    s.bytes = bytes;
  }
  return s.ptr;
}

namespace {
#ifdef BOUSS_HAVE_CUDA
cudaStream_t copy_stream(const Backend& a, const Backend& b) {
  return static_cast<cudaStream_t>(a.is_cuda() ? a.stream() : b.stream());
}
#endif
}  // namespace

void copy_bytes(void* dst, const Backend& dst_backend, const void* src,
                const Backend& src_backend, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef BOUSS_HAVE_CUDA
  if (dst_backend.is_cuda() || src_backend.is_cuda()) {
    const cudaStream_t s = copy_stream(dst_backend, src_backend);
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize after a copy");
    return;
  }
#else
  (void)dst_backend;
  (void)src_backend;
#endif
  std::memcpy(dst, src, bytes);
}

void copy_bytes_async(void* dst, const Backend& dst_backend, const void* src,
                      const Backend& src_backend, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef BOUSS_HAVE_CUDA
  if (dst_backend.is_cuda() || src_backend.is_cuda()) {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, copy_stream(dst_backend, src_backend)),
               "cudaMemcpyAsync");
    return;
  }
#endif
  copy_bytes(dst, dst_backend, src, src_backend, bytes);
}

void check_launch(const char* what) {
#ifdef BOUSS_HAVE_CUDA
  // Launch errors only: a synchronising check would break graph capture. Errors inside a
  // kernel surface at the next synchronising call (a reduction or copy) with its context.
  check_cuda(cudaGetLastError(), what);
#else
  (void)what;
#endif
}

RegionTimer::RegionTimer(const Backend& b) : backend_(b) {
#ifdef BOUSS_HAVE_CUDA
  if (backend_.is_cuda()) {
    cudaEvent_t a, e;
    check_cuda(cudaEventCreate(&a), "cudaEventCreate");
    check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    begin_ = a;
    end_ = e;
  }
#endif
}

RegionTimer::~RegionTimer() {
#ifdef BOUSS_HAVE_CUDA
  if (begin_) cudaEventDestroy(static_cast<cudaEvent_t>(begin_));
  if (end_) cudaEventDestroy(static_cast<cudaEvent_t>(end_));
#endif
}

void RegionTimer::start() {
#ifdef BOUSS_HAVE_CUDA
  if (backend_.is_cuda()) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(begin_), static_cast<cudaStream_t>(backend_.stream())),
               "cudaEventRecord");
    return;
  }
#endif
  host_start_ = now_ms();
}

double RegionTimer::stop_ms() {
#ifdef BOUSS_HAVE_CUDA
  if (backend_.is_cuda()) {
    auto e = static_cast<cudaEvent_t>(end_);
    check_cuda(cudaEventRecord(e, static_cast<cudaStream_t>(backend_.stream())), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(e), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(begin_), e), "cudaEventElapsedTime");
    return ms;
  }
#endif
  return now_ms() - host_start_;
}

double median_ms(const Backend& backend, int repeats, const std::function<void()>& work) {
  work();
  backend.synchronize();
  std::vector<double> ms;
  RegionTimer timer(backend);
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    timer.start();
    work();
    ms.push_back(timer.stop_ms());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace bouss
