#include "io/writeback.hpp"

#include "io/flush_journal_hooks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bouss {

struct Writeback::State {
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  std::mutex mutex;
  std::condition_variable wake;
  bool requested = false, stopping = false;
  long starts = 0;
  bool deferring = false;  // some of its descriptors are in the registry
  std::thread thread;

  void request() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      requested = true;
      ++starts;
    }
    wake.notify_one();
  }
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return requested || stopping; });
      if (stopping) return;
      requested = false;
      lock.unlock();
#if defined(__linux__)
      ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // the pages not yet being written
#endif
      lock.lock();
    }
  }
};

namespace {
// The descriptors whose fsyncs a Writeback defers, each with the file it was given for (a
// descriptor closed and reused for another file is not deferred).
struct Deferred {
  int fd;
  dev_t dev;
  ino_t ino;
  std::shared_ptr<Writeback::State> state;
};
std::mutex registry_mutex;
std::vector<Deferred>& registry() {
  static std::vector<Deferred> r;
  return r;
}
// The registry's size, read without the lock: a process that defers nothing (one rank's run,
// and the child a one-rank checkpoint forks, which may inherit the mutex locked by another
// thread) never takes the lock.
std::atomic<int> deferred_count{0};
}  // namespace

Writeback::Writeback(const std::string& path) : s_(std::make_shared<State>()) {
#if defined(__linux__)
  s_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (s_->fd >= 0 && ::fstat(s_->fd, &st) == 0) {
    s_->dev = st.st_dev;
    s_->ino = st.st_ino;
    State* s = s_.get();
    s_->thread = std::thread([s] { s->run(); });
  } else if (s_->fd >= 0) {
    ::close(s_->fd);
    s_->fd = -1;
  }
#else
  (void)path;
#endif
}

Writeback::~Writeback() {
  end_deferral();
  if (s_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s_->mutex);
      s_->stopping = true;
    }
    s_->wake.notify_one();
    s_->thread.join();
  }
  if (s_->fd >= 0) ::close(s_->fd);
}

void Writeback::start() {
  if (s_->thread.joinable()) s_->request();
}

long Writeback::starts() const {
  std::lock_guard<std::mutex> lock(s_->mutex);
  return s_->starts;
}

void Writeback::defer_syncs(const std::vector<int>& descriptors) {
  if (!s_->thread.joinable()) return;  // nothing to start instead: the fsyncs wait
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (int fd : descriptors) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_dev == s_->dev && st.st_ino == s_->ino) {
      registry().push_back({fd, st.st_dev, st.st_ino, s_});
      deferred_count.fetch_add(1, std::memory_order_release);
      s_->deferring = true;
    }
  }
}

void Writeback::end_deferral() {
  if (!s_->deferring) return;
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& r = registry();
  const auto gone = std::remove_if(r.begin(), r.end(), [&](const Deferred& d) { return d.state == s_; });
  deferred_count.fetch_sub(int(r.end() - gone), std::memory_order_release);
  r.erase(gone, r.end());
  s_->deferring = false;
}

bool writeback_hooks::fsync(int fd, int* result) {
  if (deferred_count.load(std::memory_order_acquire) == 0) return false;
  std::shared_ptr<Writeback::State> state;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    struct stat st {};
    for (const Deferred& d : registry())
      if (d.fd == fd && ::fstat(fd, &st) == 0 && st.st_dev == d.dev && st.st_ino == d.ino) state = d.state;
  }
  if (!state) return false;
  state->request();
  *result = 0;
  return true;
}

}  // namespace bouss
