#include "grid/backend.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef BOUSS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "grid/device_messages.hpp"

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
// Live allocations and their sizes, per kind: allocation happens at start-up, so a map
// under a lock costs nothing that matters.
struct Allocations {
  std::mutex lock;
  std::unordered_map<void*, std::size_t> sizes;
  std::size_t bytes[2] = {0, 0};
  void add(BackendKind k, void* p, std::size_t n) {
    std::lock_guard<std::mutex> g(lock);
    sizes[p] = n;
    bytes[int(k)] += n;
  }
  void remove(BackendKind k, void* p) {
    std::lock_guard<std::mutex> g(lock);
    auto it = sizes.find(p);
    if (it == sizes.end()) return;
    bytes[int(k)] -= it->second;
    sizes.erase(it);
  }
};
Allocations& allocations() {
  static Allocations a;
  return a;
}

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
  void* copy_stream = nullptr;
  void* message_stream = nullptr;
  void* ptr = nullptr;
  std::size_t bytes = 0;
  struct Block {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    bool nccl = false;  // NCCL's memory (allocate_message_memory), once and for good
  };
  Block buffers[4];  // Backend::Buffer
  std::vector<void*> retired;  // NCCL memory given up during a capture, freed after it
  explicit State(BackendKind k) : kind(k) {}
  ~State() {
    for (int b = 0; b < 4; ++b) release_buffer(b);
#ifdef BOUSS_HAVE_CUDA
    for (void* p : retired) release_message_memory(p);
    if (kind == BackendKind::cuda) {
      if (ptr) cudaFree(ptr);
      if (stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
      if (copy_stream) cudaStreamDestroy(static_cast<cudaStream_t>(copy_stream));
      if (message_stream) cudaStreamDestroy(static_cast<cudaStream_t>(message_stream));
      return;
    }
#endif
    std::free(ptr);
  }
#ifdef BOUSS_HAVE_CUDA
  // cudaFree waits for the device's work queued before it; NCCL's memory (CUDA's virtual
  // memory) is unmapped at once: the kernels and messages queued on it finish first. Inside
  // a capture nothing may wait: it is kept until the next release outside one.
  void release_nccl(void* p) {
    retired.push_back(p);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (stream) cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &capturing);
    if (capturing != cudaStreamCaptureStatusNone) return;
    cudaDeviceSynchronize();
    for (void* q : retired) release_message_memory(q);
    retired.clear();
  }
#endif
  // Buffers 0 and 1 live where the backend's fields do, 2 and 3 on the host (page-locked
  // for a CUDA backend).
  static bool on_device(int b) { return b < 2; }
  void release_buffer(int b) {
    Block& k = buffers[b];
    if (!k.ptr) return;
#ifdef BOUSS_HAVE_CUDA
    if (kind == BackendKind::cuda) {
      if (k.nccl) release_nccl(k.ptr);
      else if (on_device(b)) cudaFree(k.ptr);
      else cudaFreeHost(k.ptr);
      k = Block{};
      return;
    }
#endif
    std::free(k.ptr);
    k = Block{};
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

void* Backend::copy_stream() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda() && !state_->copy_stream) {
    cudaStream_t s;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate (copy stream)");
    state_->copy_stream = s;
  }
#endif
  return state_->copy_stream;
}

void* Backend::message_stream() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda() && !state_->message_stream) {
    cudaStream_t s;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate (message stream)");
    state_->message_stream = s;
  }
#endif
  return state_->message_stream;
}

bool Backend::cuda_compiled() {
#ifdef BOUSS_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int Backend::cuda_devices() {
#ifdef BOUSS_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
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
  void* p = nullptr;
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    const cudaError_t e = cudaMalloc(&p, bytes);  // 256-byte aligned
    if (e != cudaSuccess) {
      cudaGetLastError();
      std::size_t free = 0, total = 0;
      cudaMemGetInfo(&free, &total);
      throw std::runtime_error("cannot allocate " + std::to_string(bytes >> 20) + " MiB on the GPU: " +
                               cudaGetErrorString(e) + " (" + std::to_string(free >> 20) + " MiB free of " +
                               std::to_string(total >> 20) + ")");
    }
    allocations().add(BackendKind::cuda, p, bytes);
    return p;
  }
  if (state_->pinned) {
    check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost");  // page-aligned
    allocations().add(BackendKind::cpu, p, bytes);
    return p;
  }
#endif
  p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::runtime_error("cannot allocate " + std::to_string(bytes >> 20) + " MiB of host memory");
  allocations().add(BackendKind::cpu, p, bytes);
  return p;
}

void Backend::deallocate(void* p) const {
  if (!p) return;
  allocations().remove(kind_, p);
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

std::size_t Backend::host_available_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        std::fclose(f);
        return std::size_t(kib) * 1024;
      }
    }
    std::fclose(f);
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : SIZE_MAX;
}

std::size_t Backend::available_bytes() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
  }
#endif
  return host_available_bytes();
}

std::size_t allocated_bytes(BackendKind kind) {
  Allocations& a = allocations();
  std::lock_guard<std::mutex> g(a.lock);
  return a.bytes[int(kind)];
}

void Backend::synchronize() const {
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream())), "cudaStreamSynchronize");
#endif
}

std::size_t Backend::scratch_bytes() const { return state_->bytes; }

void* Backend::buffer(Buffer which, std::size_t bytes) const {
  State& s = *state_;
  const int b = int(which);
  State::Block& k = s.buffers[b];
  // A device buffer of ranks whose messages go by NCCL is NCCL's memory (every rank's alike,
  // as its registration needs); one made before by this backend's copy of one rank (a
  // gathered level's) is made again so, and stays so for both.
  const bool nccl = State::on_device(b) && (k.nccl || message_buffers_by_nccl(*this));
  if (bytes <= k.bytes && nccl == k.nccl) return k.ptr;
  s.release_buffer(b);
  const std::size_t size = std::max<std::size_t>(256, (bytes + 255) / 256 * 256);
#ifdef BOUSS_HAVE_CUDA
  if (is_cuda()) {
    if (nccl)
      k.ptr = allocate_message_memory(size);
    else
      check_cuda(State::on_device(b) ? cudaMalloc(&k.ptr, size) : cudaMallocHost(&k.ptr, size), "halo buffer");
    k.bytes = size;
    k.nccl = nccl;
    return k.ptr;
  }
#endif
  k.ptr = std::aligned_alloc(256, size);
  if (!k.ptr) throw std::runtime_error("cannot allocate " + std::to_string(size >> 20) + " MiB of host memory");
  k.bytes = size;
  return k.ptr;
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
cudaStream_t stream_of(const Backend& a, const Backend& b) {
  return static_cast<cudaStream_t>(a.is_cuda() ? a.stream() : b.stream());
}
#endif
}  // namespace

void copy_bytes(void* dst, const Backend& dst_backend, const void* src,
                const Backend& src_backend, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef BOUSS_HAVE_CUDA
  if (dst_backend.is_cuda() || src_backend.is_cuda()) {
    const cudaStream_t s = stream_of(dst_backend, src_backend);
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
                      const Backend& src_backend, std::size_t bytes, bool on_copy_stream) {
  if (bytes == 0) return;
#ifdef BOUSS_HAVE_CUDA
  if (dst_backend.is_cuda() || src_backend.is_cuda()) {
    const Backend& gpu = dst_backend.is_cuda() ? dst_backend : src_backend;
    const cudaStream_t s = on_copy_stream ? static_cast<cudaStream_t>(gpu.copy_stream()) : stream_of(dst_backend, src_backend);
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
    return;
  }
#else
  (void)on_copy_stream;
#endif
  copy_bytes(dst, dst_backend, src, src_backend, bytes);
}

bool check_kernels_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("BOUSS_CHECK_KERNELS");
    return v && *v && std::string(v) != "0";
  }();
  return enabled;
}

void check_launch(const char* what, const Backend& backend, const char* field) {
#ifdef BOUSS_HAVE_CUDA
  if (!backend.is_cuda()) return;
  // The message is built only on failure: this runs after every launch.
  auto fail = [&](cudaError_t e) {
    cudaGetLastError();
    throw std::runtime_error(std::string("CUDA error in kernel ") + what +
                             (field && *field ? std::string(" on field ") + field : "") + ": " + cudaGetErrorString(e));
  };
  // Launch errors only by default: a synchronising check would break graph capture and
  // cost a round trip per launch. Errors inside a kernel surface at the next synchronising
  // call, unless BOUSS_CHECK_KERNELS asks for a wait here.
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) fail(e);
  if (check_kernels_enabled()) {
    const auto stream = static_cast<cudaStream_t>(backend.stream());
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (const cudaError_t e = cudaStreamIsCapturing(stream, &capturing); e != cudaSuccess) fail(e);
    if (capturing == cudaStreamCaptureStatusNone)
      if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) fail(e);
  }
#else
  (void)what;
  (void)backend;
  (void)field;
#endif
}

StreamEvent::~StreamEvent() {
#ifdef BOUSS_HAVE_CUDA
  if (event_) cudaEventDestroy(static_cast<cudaEvent_t>(event_));
#endif
}

void StreamEvent::record(const Backend& backend, bool on_copy_stream) {
  recorded_cuda_ = backend.is_cuda();
#ifdef BOUSS_HAVE_CUDA
  if (!recorded_cuda_) return;
  if (!event_) {
    cudaEvent_t e;
    // A wait for a point of the copy stream (the IO thread's, for a staged record) sleeps
    // instead of spinning on the driver while the time loop launches work.
    const unsigned flags = cudaEventDisableTiming | (on_copy_stream ? cudaEventBlockingSync : 0u);
    check_cuda(cudaEventCreateWithFlags(&e, flags), "cudaEventCreate");
    event_ = e;
  }
  const void* stream = on_copy_stream ? backend.copy_stream() : backend.stream();
  check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(event_), static_cast<cudaStream_t>(const_cast<void*>(stream))),
             "cudaEventRecord");
#else
  (void)on_copy_stream;
#endif
}

void StreamEvent::make_copy_stream_wait(const Backend& backend) const {
#ifdef BOUSS_HAVE_CUDA
  if (!recorded_cuda_ || !backend.is_cuda()) return;
  check_cuda(cudaStreamWaitEvent(static_cast<cudaStream_t>(backend.copy_stream()), static_cast<cudaEvent_t>(event_), 0),
             "cudaStreamWaitEvent");
#else
  (void)backend;
#endif
}

void StreamEvent::record_on(const Backend& backend, void* stream) {
  recorded_cuda_ = backend.is_cuda();
#ifdef BOUSS_HAVE_CUDA
  if (!recorded_cuda_) return;
  if (!event_) {
    cudaEvent_t e;
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    event_ = e;
  }
  check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(event_), static_cast<cudaStream_t>(stream)), "cudaEventRecord");
#else
  (void)stream;
#endif
}

void StreamEvent::make_wait(const Backend& backend, void* stream) const {
#ifdef BOUSS_HAVE_CUDA
  if (!recorded_cuda_ || !backend.is_cuda()) return;
  check_cuda(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event_), 0),
             "cudaStreamWaitEvent");
#else
  (void)backend, (void)stream;
#endif
}

bool StreamEvent::ready() const {
#ifdef BOUSS_HAVE_CUDA
  if (recorded_cuda_) {
    const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(event_));
    if (e == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    check_cuda(e, "cudaEventQuery");
  }
#endif
  return true;
}

void StreamEvent::wait() const {
#ifdef BOUSS_HAVE_CUDA
  if (recorded_cuda_) check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)), "cudaEventSynchronize");
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
