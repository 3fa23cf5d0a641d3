#include "io/io_thread.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace bouss {

struct IoThread::State {
  std::mutex lock;
  std::condition_variable wake;     // the thread: a job arrived, or stop
  std::condition_variable changed;  // callers: a job finished (or was skipped)
  struct Job {
    std::function<void()> run;
    bool cleanup = false;  // runs even after a failure
  };
  std::deque<Job> jobs;
  bool busy = false, stopping = false;
  double busy_seconds = 0;
  std::exception_ptr failure;
  std::thread::id id;
  std::thread thread;

  void loop() {
    std::unique_lock<std::mutex> g(lock);
    for (;;) {
      wake.wait(g, [&] { return stopping || !jobs.empty(); });
      if (jobs.empty()) return;  // stopping, and nothing left
      Job job = std::move(jobs.front());
      jobs.pop_front();
      busy = true;
      const bool skip = failure && !job.cleanup;  // an earlier job failed: the output has ended
      g.unlock();
      std::exception_ptr e;
      const auto t0 = std::chrono::steady_clock::now();
      if (!skip) {
        try {
          job.run();
        } catch (...) {
          if (!job.cleanup) e = std::current_exception();
        }
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      job.run = nullptr;  // its captures are released outside the lock
      g.lock();
      busy_seconds += seconds;
      if (e && !failure) failure = e;
      busy = false;
      changed.notify_all();
    }
  }

  bool idle() const { return jobs.empty() && !busy; }
  void rethrow_failure() const {
    if (failure) std::rethrow_exception(failure);
  }
};

IoThread& IoThread::instance() {
  static IoThread io;
  return io;
}

IoThread::IoThread() : state_(std::make_unique<State>()) {
  state_->thread = std::thread([s = state_.get()] { s->loop(); });
  state_->id = state_->thread.get_id();
}

IoThread::~IoThread() {
  {
    std::lock_guard<std::mutex> g(state_->lock);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (state_->thread.joinable()) state_->thread.join();
}

bool IoThread::on_io_thread() const { return std::this_thread::get_id() == state_->id; }

void IoThread::post(std::function<void()> job) { post(std::move(job), Failure::rethrow); }

void IoThread::post(std::function<void()> job, Failure earlier) {
  if (on_io_thread()) {  // a job queueing more work runs it in place, in order
    job();
    return;
  }
  std::lock_guard<std::mutex> g(state_->lock);
  if (earlier == Failure::rethrow) state_->rethrow_failure();
  state_->jobs.push_back({std::move(job), false});
  state_->wake.notify_one();
}

void IoThread::cleanup(const std::function<void()>& job) noexcept {
  if (on_io_thread()) {
    try {
      job();
    } catch (...) {
    }
    return;
  }
  std::atomic<bool> done{false};
  std::unique_lock<std::mutex> g(state_->lock);
  state_->jobs.push_back({[&] {
                            try {
                              job();
                            } catch (...) {
                            }
                            done = true;
                          },
                          true});
  state_->wake.notify_one();
  state_->changed.wait(g, [&] { return done.load(); });
}

double IoThread::busy_seconds() const {
  std::lock_guard<std::mutex> g(state_->lock);
  return state_->busy_seconds;
}

void IoThread::check() {
  std::lock_guard<std::mutex> g(state_->lock);
  state_->rethrow_failure();
}

void IoThread::drain() {
  if (on_io_thread()) return;
  std::unique_lock<std::mutex> g(state_->lock);
  state_->changed.wait(g, [&] { return state_->idle(); });
  state_->rethrow_failure();
}

void IoThread::run_and_wait(const std::function<void()>& job) {
  if (on_io_thread()) {
    job();
    return;
  }
  // The job's own exception goes to this caller alone; a failure of an earlier posted
  // job is reported first (and the job is then skipped).
  std::exception_ptr mine;
  std::atomic<bool> done{false};
  std::unique_lock<std::mutex> g(state_->lock);
  state_->rethrow_failure();
  state_->jobs.push_back({[&] {
                            try {
                              job();
                            } catch (...) {
                              mine = std::current_exception();
                            }
                            done = true;
                          },
                          false});
  state_->wake.notify_one();
  state_->changed.wait(g, [&] { return done || (state_->failure && state_->idle()); });
  if (!done) state_->rethrow_failure();
  g.unlock();
  if (mine) std::rethrow_exception(mine);
}

void IoThread::clear_failure() {
  std::unique_lock<std::mutex> g(state_->lock);
  state_->changed.wait(g, [&] { return state_->idle(); });
  state_->failure = nullptr;
}

}  // namespace bouss
