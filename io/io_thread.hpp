// The one thread that makes every NetCDF call of the process (NetCDF-C and HDF5 are not
// thread-safe as libraries). Output files, checkpoints and restart reads all run their
// NetCDF work here: post() queues a job and returns at once (snapshots, diagnostics
// records, checkpoints, so the time loop never waits on the disk); call() runs one and
// waits for its result (opening files, restart reads). Jobs run one at a time, in the
// order they were queued.
//
// A posted job that throws ends the output: the exception is kept, later jobs are
// skipped, and the next post(), call() or drain() on any thread rethrows it, so a full
// disk stops the run at its next step with the writer's one-line message.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace bouss {

class IoThread {
 public:
  // The process's IO thread, started at first use.
  static IoThread& instance();

  void post(std::function<void()> job);
  // The same, but an earlier job's failure is not rethrown here (the job is then skipped, as
  // every job after a failure is): for the jobs of a file every rank writes, whose writers
  // fail together, and whose ranks must learn of it at a point they all reach (an agreed
  // check), not wherever each one's next post happens to be.
  enum class Failure { rethrow, kept };
  void post(std::function<void()> job, Failure earlier);
  // Runs f on the IO thread after every job queued before it, and returns its result.
  template <class F>
  auto call(F&& f) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    if constexpr (std::is_void_v<R>) {
      run_and_wait([&] { f(); });
    } else {
      std::optional<R> out;
      run_and_wait([&] { out.emplace(f()); });
      return std::move(*out);
    }
  }
  // Runs `job` even after a failure (closing and releasing what lives on the IO thread)
  // and waits for it; never throws (the job's own exception is dropped).
  void cleanup(const std::function<void()>& job) noexcept;
  // Waits until every queued job has run; rethrows a failure of one of them.
  void drain();
  // Rethrows a failure of a posted job, if one happened (never waits).
  void check();
  // Seconds the thread has spent running jobs since it started (for the writer's rate).
  double busy_seconds() const;
  // True on the IO thread itself (jobs that call back into call() run inline).
  bool on_io_thread() const;
  // Forgets a failure that was reported (a later run in the same process starts clean).
  void clear_failure();

  ~IoThread();

 private:
  IoThread();
  void run_and_wait(const std::function<void()>& job);
  struct State;
  std::unique_ptr<State> state_;
};

// An object that lives on the IO thread: made there, used there through call() and post(),
// and destroyed there (after every job queued before). For the NetCDF writer.
template <class T>
class OnIoThread {
 public:
  OnIoThread() = default;
  ~OnIoThread() { reset(); }
  OnIoThread(const OnIoThread&) = delete;
  OnIoThread& operator=(const OnIoThread&) = delete;

  template <class... A>
  void emplace(A&&... args) {
    reset();
    IoThread::instance().call([&] { object_ = std::make_unique<T>(std::forward<A>(args)...); });
  }
  void reset() noexcept {
    if (!object_) return;
    T* p = object_.release();
    IoThread::instance().cleanup([p] { delete p; });
  }
  explicit operator bool() const { return bool(object_); }

  // Runs f(object) there and waits for its result.
  template <class F>
  auto call(F&& f) {
    T* p = object_.get();
    return IoThread::instance().call([&] { return f(*p); });
  }
  // Queues f(object) there; f is moved into the job.
  template <class F>
  void post(F f, IoThread::Failure earlier = IoThread::Failure::rethrow) {
    T* p = object_.get();
    IoThread::instance().post([p, f = std::move(f)]() mutable { f(*p); }, earlier);
  }

 private:
  std::unique_ptr<T> object_;
};

}  // namespace bouss
