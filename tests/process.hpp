// Running the bouss executable from tests as a user would: in the background (to signal or
// kill it), with its output captured in files, and waiting for what it leaves on disk.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace bouss::test {

// HDF5 locks a file while a process writes it; reading a running run's partial file from a
// test needs the lock ignored (docs/output.md says the same to users).
struct IgnoreHdf5FileLocks {
  IgnoreHdf5FileLocks() { ::setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1); }
};
inline const IgnoreHdf5FileLocks ignore_hdf5_file_locks;

// The bouss executable and the source tree, as built; the environment variables of the same
// names point elsewhere (the GPU machine runs a carried copy from another folder).
inline std::string bouss_exe() {
  const char* env = std::getenv("BOUSS_EXE");
  return env && *env ? env : BOUSS_EXE;
}
inline std::string source_path(const std::string& relative) {
  const char* env = std::getenv("BOUSS_SOURCE_DIR");
  return std::string(env && *env ? env : BOUSS_SOURCE_DIR) + "/" + relative;
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// `bouss ARGS` as typed on a command line (through the shell), waited for: its exit code and
// what it wrote, captured in files of its own under the temporary folder's `scratch` (tests
// run side by side under ctest -j).
struct CommandResult {
  int code;
  std::string out, err;
};
inline CommandResult run_bouss_line(const std::string& args, const std::string& scratch) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / scratch;
  fs::create_directories(dir);
  static int calls = 0;
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(++calls);
  const std::string out = (dir / ("stdout_" + tag)).string(), err = (dir / ("stderr_" + tag)).string();
  const int status = std::system((bouss_exe() + " " + args + " >" + out + " 2>" + err).c_str());
  CommandResult r{WEXITSTATUS(status), slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

class BoussProcess {
 public:
  // Starts `bouss ARGS...` with stdout and stderr into OUT and ERR; with a launcher
  // (mpirun_launcher), `LAUNCHER... bouss ARGS...`.
  // `cwd`: the working folder of the run ("" keeps the test's).
  BoussProcess(const std::vector<std::string>& args, const std::string& out, const std::string& err,
               const std::vector<std::string>& launcher = {}, const std::string& cwd = "")
      : out_(out), err_(err) {
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Dies with the test: a test process killed by ctest's timeout runs no destructor, and
      // its runs went on for minutes, loading the machine under the tests that followed.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(125);  // the test died before the line above
      ::unsetenv("HDF5_USE_FILE_LOCKING");  // the run writes as a user's would
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
      std::vector<char*> argv;
      std::vector<std::string> copy = launcher;
      copy.push_back(bouss_exe());
      copy.insert(copy.end(), args.begin(), args.end());
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(copy.front().c_str(), argv.data());
      ::_exit(127);
    }
  }
  ~BoussProcess() {
    if (!done_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Waits for the process to end; its wait status.
  int wait() {
    if (!done_) {
      ::waitpid(pid_, &status_, 0);
      done_ = true;
    }
    return status_;
  }
  bool running() {
    if (done_) return false;
    if (::waitpid(pid_, &status_, WNOHANG) == pid_) done_ = true;
    return !done_;
  }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool done_ = false;
  std::string out_, err_;
};

// `mpirun -np RANKS` as CI can run it (more ranks than cores, as root), or empty when the
// build has no MPI. The mpirun found at configure time (BOUSS_MPIEXEC, tests/CMakeLists.txt),
// or the environment's BOUSS_MPIEXEC (the GPU machine has its own).
inline std::vector<std::string> mpirun_launcher(int ranks) {
#ifdef BOUSS_MPIEXEC
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const char* env = std::getenv("BOUSS_MPIEXEC");
  return {env && *env ? env : BOUSS_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe"};
#else
  (void)ranks;
  return {};
#endif
}

// Polls `ready` every 10 ms for up to `seconds`; whether it became true.
inline bool wait_until(const std::function<bool()>& ready, double seconds = 120) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ready();
}

}  // namespace bouss::test
