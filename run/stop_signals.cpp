#include "run/stop_signals.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>

namespace bouss::stop_signals {

namespace {
std::atomic<int> stop_signal{0};
std::atomic<int> checkpoint_requests{0};
std::atomic<bool> installed{false};
char abort_message[1024] = "bouss: second signal: stopped at once\n";
std::atomic<std::size_t> abort_length{std::strlen(abort_message)};
// Said at once on the first stop signal (async-signal-safe: one write), so that a user, or a
// test about to send a second signal, sees that the first was taken.
constexpr char first_message[] =
    "bouss: stopping after this step: a checkpoint, then the output is closed (a second signal stops at once)\n";

static_assert(std::atomic<int>::is_always_lock_free, "signal flags must be lock-free");

void on_signal(int sig) {
  if (sig == SIGUSR1) {
    checkpoint_requests.fetch_add(1);
    return;
  }
  int expected = 0;
  if (stop_signal.compare_exchange_strong(expected, sig)) {  // the first: stop between steps
    const ssize_t ignored = ::write(STDERR_FILENO, first_message, sizeof first_message - 1);
    (void)ignored;
    return;
  }
  // The second: at once, with the default action, so that the exit status says which signal.
  const ssize_t ignored = ::write(STDERR_FILENO, abort_message, abort_length.load());
  (void)ignored;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void install() {
  if (installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a write interrupted by a signal resumes instead of failing
  // SIGHUP (the terminal closed) stops the run as SIGTERM does, and so does SIGUSR2: the
  // signal mpirun forwards to the ranks without killing them a second later, as it does
  // after forwarding SIGTERM or SIGINT (Open MPI's odls_base_sigkill_timeout: docs/runs.md).
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
}

int stop_requested() { return stop_signal.load(); }

const char* name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR2: return "SIGUSR2";
    default: return "SIGTERM";
  }
}

bool take_checkpoint_request() {
  int n = checkpoint_requests.load();
  while (n > 0)
    if (checkpoint_requests.compare_exchange_weak(n, 0)) return true;
  return false;
}

void set_abort_message(const std::string& line) {
  // Not concurrent with the handler in a way that matters: the handler reads a length that
  // is set last, and an older message of the same buffer is still a whole line.
  const std::size_t n = std::min(line.size(), sizeof abort_message - 2);
  abort_length.store(0);
  std::memcpy(abort_message, line.data(), n);
  abort_message[n] = '\n';
  abort_length.store(n + 1);
}

void simulate(int signal) {
  if (signal == SIGUSR1) checkpoint_requests.fetch_add(1);
  else stop_signal.store(signal);
}

void reset() {
  stop_signal.store(0);
  checkpoint_requests.store(0);
}

}  // namespace bouss::stop_signals
