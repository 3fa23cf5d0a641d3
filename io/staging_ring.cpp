#include "io/staging_ring.hpp"

#include <spdlog/spdlog.h>

#include "io/file_util.hpp"
#include "io/io_thread.hpp"

namespace bouss {

StagingRing::StagingRing(const Backend& backend, std::size_t slot_bytes, int slots)
    : backend_(backend), host_(Backend::cpu_pinned()), slot_bytes_(slot_bytes) {
  for (int s = 0; s < slots; ++s) {
    auto slot = std::make_unique<Slot>();
    slot->device = backend_.allocate(slot_bytes_);
    slot->host = backend_.is_cuda() ? host_.allocate(slot_bytes_) : slot->device;
    free_.push_back(slot.get());
    slots_.push_back(std::move(slot));
  }
}

StagingRing::~StagingRing() {
  for (auto& slot : slots_) {
    try {
      slot->copied.wait();  // no copy may still be landing in a buffer that is freed
    } catch (...) {
    }
    if (slot->host != slot->device) host_.deallocate(slot->host);
    backend_.deallocate(slot->device);
  }
}

std::pair<double, double> StagingRing::memory(const Backend& backend, std::size_t slot_bytes, int slots) {
  const double total = double(slot_bytes) * slots;
  return backend.is_cuda() ? std::make_pair(total, total) : std::make_pair(total, 0.0);
}

StagingRing::Slot& StagingRing::acquire() {
  std::unique_lock<std::mutex> g(lock_);
  if (!used_) {
    used_ = true;
    first_use_ = std::chrono::steady_clock::now();
  }
  if (free_.empty()) {
    if (waits_++ == 0) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - first_use_).count();
      spdlog::info("output: all {} staging buffers are in flight, so the step waits for the writer, which has "
                   "written {} at {}/s (said once)",
                   slots_.size(), format_bytes(written_bytes_),
                   format_bytes(seconds > 0 ? written_bytes_ / seconds : 0));
    }
    // A writer that failed returns no slot: its failure, rethrown here, ends the run.
    while (!returned_.wait_for(g, std::chrono::milliseconds(20), [&] { return !free_.empty(); })) {
      g.unlock();
      IoThread::instance().check();
      g.lock();
    }
  }
  Slot* s = free_.back();
  free_.pop_back();
  return *s;
}

void StagingRing::queue_copy(Slot& slot, std::size_t bytes) {
  if (!backend_.is_cuda()) return;  // packed straight into host memory
  slot.packed.record(backend_);
  slot.packed.make_copy_stream_wait(backend_);
  copy_bytes_async(slot.host, host_, slot.device, backend_, bytes, true);
  slot.copied.record(backend_, true);
}

void StagingRing::release(Slot& slot, std::size_t bytes) {
  {
    std::lock_guard<std::mutex> g(lock_);
    free_.push_back(&slot);
    written_bytes_ += double(bytes);
  }
  returned_.notify_one();
}

long StagingRing::waits() const {
  std::lock_guard<std::mutex> g(lock_);
  return waits_;
}

}  // namespace bouss
