// Runs that survive, tried as a user would with the bouss executable: killed, interrupted,
// signalled for a checkpoint, stopped at a wall-clock limit, and restarted.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convection_case.hpp"
#include "netcdf_compare.hpp"
#include "process.hpp"
#include "run_checks.hpp"

namespace fs = std::filesystem;
using namespace bouss::test;

namespace {

// Convection at 48x48x24 on the CPU: about ten milliseconds a step, long enough to be signalled
// mid-run, short enough for a test. Snapshots every 4 steps, checkpoints every 20.
std::string write_case(const ScratchDir& dir, int steps, const std::string& extra = "") {
  const std::string path = dir.file("case.json");
  std::ofstream(path) << convection_case_json("survive", "[48, 48, 24]", 3,
                                              R"("time": {"steps": )" + std::to_string(steps) + R"(},
  "output": {"interval_steps": 4, "diagnostics_interval_steps": 2},
  "checkpoint": {"interval_steps": 20})" + extra);
  return path;
}

long records_in(const std::string& path) {
  const auto v = read_variables(path);
  return v.count("time") ? long(v.at("time").size()) : 0;
}

// The records of a file that a running bouss is writing, read in a child process: the
// reader can meet the file between two of the writer's updates, and HDF5 may then fail or
// even corrupt the reader's heap (seen once: "munmap_chunk(): invalid pointer" in this test
// process). A read that fails, however, counts as no records yet.
long records_while_written(const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) return 0;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    long n = 0;
    try {
      n = records_in(path);
    } catch (...) {
    }
    const ssize_t written = ::write(fds[1], &n, sizeof n);
    ::_exit(written == ssize_t(sizeof n) ? 0 : 1);
  }
  ::close(fds[1]);
  long n = 0;
  if (pid < 0 || ::read(fds[0], &n, sizeof n) != ssize_t(sizeof n)) n = 0;
  ::close(fds[0]);
  if (pid > 0) ::waitpid(pid, nullptr, 0);
  return n;
}

std::vector<std::string> partials_of(const std::string& out) {
  std::vector<std::string> found;
  const fs::path p(out);
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(p.filename().string() + ".", 0) == 0 && name.size() > 8 &&
        name.compare(name.size() - 8, 8, ".partial") == 0)
      found.push_back(e.path().string());
  }
  return found;
}

std::string newest_checkpoint(const ScratchDir& dir, const std::string& stem) {
  std::string best;
  long best_step = -1;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    const std::string prefix = fs::path(stem).filename().string() + ".checkpoint.";
    if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 4 || name.substr(name.size() - 3) != ".nc") continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 3);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stol(digits) > best_step) {
      best_step = std::stol(digits);
      best = e.path().string();
    }
  }
  return best;
}

}  // namespace

TEST(Survival, SigkillLeavesAReadablePartialFileWithTheSnapshotsWritten) {
  ScratchDir dir("sigkill");
  const std::string out = dir.file("run.nc");
  BoussProcess p({"run", write_case(dir, 100000), "--output", out}, dir.file("out"), dir.file("err"));
  ASSERT_TRUE(wait_until([&] {
    const auto partial = partials_of(out);
    return !partial.empty() && records_while_written(partial.front()) >= 4;
  })) << p.err();
  p.signal(SIGKILL);
  p.wait();
  const auto partial = partials_of(out);
  ASSERT_EQ(partial.size(), 1u);
  EXPECT_GE(records_in(partial.front()), 4) << "every flushed snapshot reads back";
  EXPECT_FALSE(fs::exists(out)) << "a killed run never appears under the final name";
  // ParaView's description of what the killed run left, made afterwards.
  BoussProcess x({"xdmf", partial.front()}, dir.file("xout"), dir.file("xerr"));
  ASSERT_EQ(WEXITSTATUS(x.wait()), 0) << x.err();
  const std::string xdmf = partial.front() + ".xdmf2";
  ASSERT_TRUE(fs::exists(xdmf));
  if (std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") != 0) GTEST_SKIP() << "python3-h5py missing";
  const std::string check = "/usr/bin/python3 '" + source_path("tests/check_xdmf.py") + "' '" + xdmf + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(check.c_str()), 0) << "the XDMF names datasets of the partial file with their shapes";
}

TEST(Survival, SigkillMidStreamLeavesEveryStreamsPartialFileReadable) {
  ScratchDir dir("sigkill_streams");
  const std::string full = dir.file("full.nc"), mid = dir.file("mid.nc"), prof = dir.file("prof.nc");
  const std::string streams = R"(, "output": [{"file": ")" + full + R"(", "interval_steps": 8},
    {"file": ")" + mid + R"(", "interval_steps": 1, "fields": ["T", "w"], "region": {"z": 0.5}, "precision": "float",
     "compression": {"deflate": 1}},
    {"file": ")" + prof + R"(", "interval_steps": 2, "profiles": true, "diagnostics": false}])";
  // write_case's own "output" is replaced by the later key (the parser takes the last).
  std::string text;
  {
    std::ifstream in(write_case(dir, 100000));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  text.replace(text.find(R"(  "output": {"interval_steps": 4, "diagnostics_interval_steps": 2},)"),
               std::string(R"(  "output": {"interval_steps": 4, "diagnostics_interval_steps": 2},)").size(), "");
  text.insert(text.rfind('}'), streams);
  std::ofstream(dir.file("case.json")) << text;
  BoussProcess p({"run", dir.file("case.json")}, dir.file("out"), dir.file("err"));
  ASSERT_TRUE(wait_until([&] {
    const auto partial = partials_of(mid);
    return !partial.empty() && records_while_written(partial.front()) >= 12;
  })) << p.err();
  p.signal(SIGKILL);
  p.wait();
  for (const std::string& out : {full, mid, prof}) {
    const auto partial = partials_of(out);
    ASSERT_EQ(partial.size(), 1u) << out;
    EXPECT_FALSE(fs::exists(out)) << "a killed run never appears under the final name";
    const auto v = read_variables(partial.front());
    const char* record = out == prof ? "profile_time" : "time";
    ASSERT_TRUE(v.count(record)) << partial.front();
    EXPECT_GE(v.at(record).size(), out == full ? 1u : out == mid ? 12u : 5u) << partial.front() << " reads back";
  }
}

// SIGHUP (a closed terminal) is SIGTERM's stop too; before, it killed the run.
TEST(Survival, SigtermSigintAndSighupFinishTheStepCheckpointCloseTheFileAndExit143130And129) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    ScratchDir dir("sigterm");
    const std::string out = dir.file("run.nc");
    BoussProcess p({"run", write_case(dir, 100000), "--output", out}, dir.file("out"), dir.file("err"));
    ASSERT_TRUE(wait_until([&] {
      const auto partial = partials_of(out);
      return !partial.empty() && records_while_written(partial.front()) >= 2;
    })) << p.err();
    p.signal(sig);
    const int status = p.wait();
    ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal instead of stopping cleanly; " << p.err();
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << p.err();
    EXPECT_TRUE(fs::exists(out)) << "closed under its final name";
    EXPECT_TRUE(fs::exists(out + ".xdmf2")) << "with its XDMF description beside it";
    EXPECT_TRUE(partials_of(out).empty());
    const std::string checkpoint = newest_checkpoint(dir, dir.file("run"));
    EXPECT_FALSE(checkpoint.empty()) << "a checkpoint of the stop";
    EXPECT_NE(p.out().find("--restart " + checkpoint), std::string::npos) << "how to continue: " << p.out();
  }
}

// `bouss run ... | head -n 1`: the reader goes away before the first step (or later), the
// next log line meets a closed pipe. Before, SIGPIPE killed the run there, with no checkpoint
// and the output under its partial name; now the log stops and the run goes on to its end.
TEST(Survival, AReaderThatGoesAwayNeverKillsTheRun) {
  for (int lines_read : {1, 12}) {
    ScratchDir dir("closed_pipe");
    const std::string out = dir.file("run.nc");
    const std::string case_file = write_case(dir, 100);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      if (!std::freopen(dir.file("err").c_str(), "w", stderr)) ::_exit(126);
      const std::string exe = bouss_exe();
      ::execl(exe.c_str(), exe.c_str(), "run", case_file.c_str(), "--output", out.c_str(), "--progress", "0.001",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    std::FILE* reader = ::fdopen(fds[0], "r");
    char line[4096];
    for (int n = 0; n < lines_read && std::fgets(line, sizeof line, reader); ++n) {
    }
    std::fclose(reader);  // the reader goes away
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                   << " after " << lines_read << " lines; " << slurp(dir.file("err"));
    EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(dir.file("err"));
    EXPECT_EQ(records_in(out), 26) << "every snapshot of the 100 steps, under the final name";
  }
}

// The user's whole story: a run killed after a checkpoint, restarted into the same file,
// ends with the file an uninterrupted run writes, bit for bit; the killed run's partial goes.
TEST(Survival, KilledAfterACheckpointAndRestartedIntoTheSameFileEqualsTheUninterruptedRun) {
  ScratchDir dir("kill_restart");
  const int steps = 200;
  const std::string reference = dir.file("reference.nc");
  {
    BoussProcess p({"run", write_case(dir, steps), "--output", reference, "--set", "checkpoint.file=\"" + dir.file("ref") + "\""},
                   dir.file("ref_out"), dir.file("ref_err"));
    ASSERT_EQ(WEXITSTATUS(p.wait()), 0) << p.err();
  }
  const std::string out = dir.file("run.nc");
  const std::string case_file = write_case(dir, steps);
  std::string killed_log;  // what the killed run said, for the messages below
  // A loaded machine can leave this process unscheduled until the run has finished (its
  // last 160 steps take a fraction of a second): then there is nothing to kill, and the run
  // starts again from scratch, up to three times.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<fs::path> earlier;  // an earlier attempt's files
    for (const auto& e : fs::directory_iterator(dir.path()))
      if (e.path().filename().string().rfind("run.", 0) == 0) earlier.push_back(e.path());
    for (const fs::path& f : earlier) fs::remove(f);
    BoussProcess p({"run", case_file, "--output", out}, dir.file("out"), dir.file("err"));
    ASSERT_TRUE(wait_until([&] { return fs::exists(dir.file("run.checkpoint.40.nc")) || !p.running(); })) << p.err();
    const bool killed = p.running();
    p.signal(SIGKILL);
    p.wait();
    killed_log = p.err();
    if (killed) break;
  }
  const std::string checkpoint = newest_checkpoint(dir, dir.file("run"));
  ASSERT_FALSE(checkpoint.empty()) << killed_log;
  const auto killed_partial = partials_of(out);
  ASSERT_EQ(killed_partial.size(), 1u) << "the killed run left its partial output: " << killed_log;
  BoussProcess r({"run", case_file, "--output", out, "--restart", checkpoint}, dir.file("out2"), dir.file("err2"));
  ASSERT_EQ(WEXITSTATUS(r.wait()), 0) << r.err();
  EXPECT_EQ(bitwise_difference(reference, out), "");
  EXPECT_TRUE(partials_of(out).empty()) << "the killed run's partial is replaced by the restarted file";
}

TEST(Survival, Sigusr1WritesACheckpointAndTheRunGoesOn) {
  ScratchDir dir("sigusr1");
  const std::string out = dir.file("run.nc");
  BoussProcess p({"run", write_case(dir, 400), "--output", out, "--set", "checkpoint.interval_steps=100000"},
                 dir.file("out"), dir.file("err"));
  ASSERT_TRUE(wait_until([&] {
    const auto partial = partials_of(out);
    return !partial.empty() && records_while_written(partial.front()) >= 2;
  }));
  p.signal(SIGUSR1);
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << p.err();
  EXPECT_FALSE(newest_checkpoint(dir, dir.file("run")).empty()) << p.out();
  EXPECT_EQ(records_in(out), 400 / 4 + 1) << "the run went on to its end";
}

TEST(Survival, ASecondSignalStopsAtOnceAndLeavesThePartialFile) {
  ScratchDir dir("second_signal");
  const std::string out = dir.file("run.nc");
  // Larger steps, so that the second signal arrives while the first is being honoured.
  BoussProcess p({"run", write_case(dir, 100000), "--output", out, "--set", "grid.n=[96,96,48]"}, dir.file("out"),
                 dir.file("err"));
  ASSERT_TRUE(wait_until([&] { return !partials_of(out).empty() && records_while_written(partials_of(out).front()) >= 1; }));
  p.signal(SIGINT);
  // The second signal only once the first is taken (two pending SIGINTs would merge into one).
  ASSERT_TRUE(wait_until([&] { return p.err().find("stopping after this step") != std::string::npos || !p.running(); }))
      << p.err();
  p.signal(SIGINT);
  const int status = p.wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status << " " << p.err();
  EXPECT_NE(p.err().find("second signal"), std::string::npos) << p.err();
  EXPECT_EQ(partials_of(out).size(), 1u);
  EXPECT_FALSE(fs::exists(out));
}

TEST(Survival, WallLimitWritesACheckpointAndStopsCleanly) {
  ScratchDir dir("wall_limit");
  const std::string out = dir.file("run.nc");
  // The margin (two steps, a checkpoint, 5 s) exceeds one second: the run stops after one step.
  BoussProcess p({"run", write_case(dir, 100000), "--output", out, "--wall-limit", "00:00:01"}, dir.file("out"),
                 dir.file("err"));
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << p.err();
  EXPECT_NE(p.out().find("wall-clock limit"), std::string::npos) << p.out();
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(newest_checkpoint(dir, dir.file("run")).empty());
  BoussProcess bad({"run", write_case(dir, 10), "--wall-limit", "25:61"}, dir.file("out2"), dir.file("err2"));
  EXPECT_EQ(WEXITSTATUS(bad.wait()), 2);
  EXPECT_NE(bad.err().find("--wall-limit 25:61"), std::string::npos) << bad.err();
}
