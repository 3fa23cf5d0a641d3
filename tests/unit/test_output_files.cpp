// Where output goes, as a user meets it: check_output_writable refuses what is no regular
// file before anything is allocated and removes nothing it did not create; a run that
// fails on a full disk or a file size limit ends with one `bouss: error:` line naming the
// path and the reason, exit code 1 and no crash, and says where its partial file is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <netcdf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/netcdf_writer.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;

namespace {

using TempDir = bouss::test::ScratchDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The message of check_output_writable's exception, or "" when it accepts the path.
std::string refusal(const std::string& path) {
  try {
    bouss::check_output_writable(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void expect_one_line_refusal(const std::string& path, const std::string& says = "") {
  const std::string msg = refusal(path);
  ASSERT_FALSE(msg.empty()) << path << " was accepted";
  EXPECT_EQ(msg.rfind("output file " + path + " cannot be written: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  if (!says.empty()) {
    EXPECT_NE(msg.find(says), std::string::npos) << msg;
  }
}

mode_t file_type(const std::string& path) {
  struct stat st{};
  return lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

struct RunResult {
  int status = -1;  // as waitpid reports it
  std::string out, err;
  bool exited_with(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
  std::string how() const {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
  }
};

// Runs a shell command line (`bouss` is BOUSS_EXE) in `dir`, capturing its output.
RunResult run_shell(const TempDir& dir, const std::string& line) {
  const std::string out = dir.file("stdout"), err = dir.file("stderr");
  const std::string cmd = "cd " + dir.path().string() + " && " + line + " >" + out + " 2>" + err;
  RunResult r;
  r.status = std::system(cmd.c_str());
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

std::string bouss_exe() { return BOUSS_EXE; }

// A small case with a snapshot and a diagnostics record every step (~12 KiB per step).
std::string write_case(const TempDir& dir, const std::string& output, int steps = 400) {
  const std::string path = dir.file("case.json");
  std::ofstream(path) << R"({
  "name": "output_files_test",
  "grid": {"n": [8, 8, 4], "extent": [[0, 2], [0, 2], [0, 1]]},
  "physics": {"rayleigh": 2000, "prandtl": 1, "units": "diffusive"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}},
  "initial": {"perturbation": {"amplitude": 0.01, "seed": 3}},
  "time": {"steps": )" + std::to_string(steps) + R"(},
  "output": {"file": ")" + output + R"(", "interval_steps": 1, "diagnostics_interval_steps": 1}
})";
  return path;
}

std::vector<std::string> partial_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().string();
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0) out.push_back(name);
  }
  return out;
}

long time_records(const std::string& path, const char* dimension = "time") {
  int ncid = -1, dim = -1;
  size_t len = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) return -1;
  const bool ok = nc_inq_dimid(ncid, dimension, &dim) == NC_NOERR && nc_inq_dimlen(ncid, dim, &len) == NC_NOERR;
  nc_close(ncid);
  return ok ? long(len) : -1;
}

// A failed run: exit 1, one `bouss: error:` line naming the output and the reason, its
// partial file named there and readable with at least one record, no final file.
void expect_failed_run(const RunResult& r, const std::string& out, const std::string& reason) {
  EXPECT_TRUE(r.exited_with(1)) << r.how() << " (139 or a signal: a crash)\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("bouss: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  const auto partials = partial_files(fs::path(out).parent_path());
  ASSERT_EQ(partials.size(), 1u);
  EXPECT_NE(r.err.find(partials[0]), std::string::npos) << "says where the partial file is: " << r.err;
  EXPECT_GE(time_records(partials[0]), 1) << partials[0] << " is readable";
}

}  // namespace

TEST(OutputFiles, CheckRefusesWhatIsNotARegularFile) {
  TempDir dir;
  const std::string fifo = dir.file("pipe.nc");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_refusal(fifo, "not a regular file");
  expect_one_line_refusal("/dev/null", "not a regular file");
  expect_one_line_refusal(dir.path().string(), "folder");
  EXPECT_EQ(file_type(fifo), mode_t(S_IFIFO));
  EXPECT_EQ(file_type("/dev/null"), mode_t(S_IFCHR));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << "nothing but the fifo";
}

TEST(OutputFiles, CheckRemovesNothingItDidNotCreate) {
  TempDir dir;
  const std::string path = dir.file("run.nc");
  const std::string pid = std::to_string(getpid());
  // Partial files of other runs (one of them of an earlier process with this pid), the
  // name the old check used, a file named like this check's own probe, and FILE itself.
  const std::vector<std::string> others = {path,
                                           path + ".partial",
                                           path + ".4242.partial",
                                           path + "." + pid + ".partial",
                                           path + "." + pid + ".0.probe"};
  for (const auto& o : others) std::ofstream(o) << "keep " << o;
  EXPECT_EQ(refusal(path), "");
  for (const auto& o : others) EXPECT_EQ(slurp(o), "keep " + o);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), long(others.size()));
}

TEST(OutputFiles, CheckWritesThroughASymbolicLinkToARegularFileOnly) {
  TempDir dir;
  fs::create_directories(dir.path() / "scratch");
  std::ofstream(dir.file("scratch/run.nc")) << "previous";
  fs::create_symlink(dir.path() / "scratch" / "run.nc", dir.path() / "run.nc");
  EXPECT_EQ(refusal(dir.file("run.nc")), "");
  EXPECT_EQ(slurp(dir.file("scratch/run.nc")), "previous");
  EXPECT_EQ(file_type(dir.file("run.nc")), mode_t(S_IFLNK));

  ASSERT_EQ(mkfifo(dir.file("scratch/pipe").c_str(), 0600), 0);
  fs::create_symlink(dir.path() / "scratch" / "pipe", dir.path() / "to_pipe.nc");
  fs::create_symlink("/dev/null", dir.path() / "to_null.nc");
  fs::create_symlink(dir.path() / "scratch", dir.path() / "to_folder.nc");
  fs::create_symlink(dir.path() / "scratch" / "missing.nc", dir.path() / "dangling.nc");
  for (const char* name : {"to_pipe.nc", "to_null.nc", "to_folder.nc", "dangling.nc"}) {
    SCOPED_TRACE(name);
    expect_one_line_refusal(dir.file(name), "symbolic link");
    EXPECT_EQ(file_type(dir.file(name)), mode_t(S_IFLNK));
  }
  EXPECT_FALSE(fs::exists(dir.path() / "scratch" / "missing.nc"));
}

TEST(OutputFiles, CheckRefusesAReadOnlyFolderWithOneLine) {
  TempDir dir;
  fs::create_directories(dir.path() / "ro");
  fs::permissions(dir.path() / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const std::string path = dir.file("ro/run.nc");
  if (geteuid() != 0) {
    expect_one_line_refusal(path, "Permission denied");
    return;
  }
  // Root ignores permissions: check as the unprivileged user `nobody`, in a child.
  fs::permissions(dir.path(), fs::perms::others_exec, fs::perm_options::add);
  int pipe_fd[2];
  ASSERT_EQ(pipe(pipe_fd), 0);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fd[0]);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(77);
    const std::string msg = refusal(path);
    if (write(pipe_fd[1], msg.data(), msg.size()) < 0) _exit(78);
    _exit(0);
  }
  close(pipe_fd[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(pipe_fd[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  close(pipe_fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "running as root, and cannot switch to the user nobody to see a read-only folder";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(msg.rfind("output file " + path + " cannot be written: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(OutputFiles, RunRefusesAnOutputThatIsNotARegularFile) {
  TempDir dir;
  const std::string fifo = dir.file("pipe.nc");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> targets = {fifo};
  // A device node like /dev/null (the real one is not put at risk), where mknod is allowed.
  const std::string device = dir.file("null.nc");
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) targets.push_back(device);
  const std::string case_file = write_case(dir, dir.file("unused.nc"), 3);
  for (const auto& t : targets) {
    SCOPED_TRACE(t);
    const mode_t type = file_type(t);
    const RunResult r = run_shell(dir, bouss_exe() + " run " + case_file + " --backend cpu --output " + t);
    EXPECT_TRUE(r.exited_with(2)) << r.how() << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(t), std::string::npos) << r.err;
    EXPECT_EQ(file_type(t), type) << "still what it was";
  }
  if (targets.size() == 1) std::printf("(no device node test: mknod is not permitted here)\n");
  EXPECT_TRUE(partial_files(dir.path()).empty());
}

TEST(OutputFiles, FileSizeLimitEndsTheRunWithOneErrorLineAndExitOne) {
  // `ulimit -f` (RLIMIT_FSIZE) makes writes fail as a full disk does, without root.
  for (const std::string trap : {"trap '' XFSZ; ", ""}) {  // SIGXFSZ ignored, and not
    SCOPED_TRACE(trap.empty() ? "SIGXFSZ at its default (the run must not get that far)" : "SIGXFSZ ignored");
    TempDir dir;
    const std::string out = dir.file("out/limited.nc");
    const std::string case_file = write_case(dir, out);
    const RunResult r = run_shell(dir, "sh -c \"ulimit -f 1000; " + trap + "exec " + bouss_exe() + " run " + case_file +
                                     " --backend cpu\"");
    expect_failed_run(r, out, "File too large");
    EXPECT_FALSE(fs::exists(dir.path() / "core"));
  }
}

TEST(OutputFiles, FileSizeLimitWithSeveralStreamsEndsTheRunWithOneLineNamingEveryPartialFile) {
  TempDir dir;
  const std::string full = dir.file("out/full.nc"), mid = dir.file("out/mid.nc");
  const std::string streams = R"([{"file": ")" + full + R"(", "interval_steps": 1},
    {"file": ")" + mid + R"(", "interval_steps": 1, "fields": ["T", "w"], "region": {"z": 0.5}},
    {"file": ")" + dir.file("out/profiles.nc") + R"(", "interval_steps": 1, "profiles": true, "diagnostics": false}])";
  const std::string case_file = write_case(dir, full);
  nlohmann::json j = nlohmann::json::parse(slurp(case_file));
  j["output"] = nlohmann::json::parse(streams);
  std::ofstream(case_file) << j.dump();
  const RunResult r = run_shell(dir, "sh -c \"ulimit -f 1000; trap '' XFSZ; exec " + bouss_exe() + " run " + case_file +
                                         " --backend cpu\"");
  EXPECT_TRUE(r.exited_with(1)) << r.how() << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  const auto partials = partial_files(dir.path() / "out");
  ASSERT_EQ(partials.size(), 3u) << r.err;
  for (const std::string& p : partials) {
    EXPECT_NE(r.err.find(p), std::string::npos) << "says where each partial file is: " << r.err;
    EXPECT_GE(time_records(p, p.find("profiles") != std::string::npos ? "profile_time" : "time"), 1)
        << p << " is readable";
  }
  for (const std::string& f : {full, mid, dir.file("out/profiles.nc")}) EXPECT_FALSE(fs::exists(f)) << f;
}

TEST(OutputFiles, FullDiskEndsTheRunWithOneErrorLineAndExitOne) {
  TempDir dir;
  fs::create_directories(dir.path() / "disk");
  if (mount("tmpfs", (dir.path() / "disk").c_str(), "tmpfs", 0, "size=1m") != 0)
    GTEST_SKIP() << "cannot mount a 1 MiB tmpfs here (" << std::strerror(errno) << "); needs root";
  const std::string out = dir.file("disk/run.nc");
  const RunResult r = run_shell(dir, bouss_exe() + " run " + write_case(dir, out) + " --backend cpu");
  expect_failed_run(r, out, "No space left on device");
}

TEST(OutputFiles, AFailedRunSaysWhereItsPartialFileIs) {
  TempDir dir;
  const std::string out = dir.file("blowup.nc");
  // A step far beyond the stability limit: the run blows up and stops with an error.
  const RunResult r = run_shell(dir, bouss_exe() + " run " + write_case(dir, out, 40) + " --backend cpu --set time.dt=5");
  expect_failed_run(r, out, "the output so far");
}

TEST(OutputFiles, ASecondRunKeepsTheFirstRunsPartialFile) {
  TempDir dir;
  const std::string out = dir.file("run.nc");
  const std::string earlier = out + ".4242.partial";  // what a killed run left
  std::ofstream(earlier) << "the killed run's records";
  const RunResult r = run_shell(dir, bouss_exe() + " run " + write_case(dir, out, 3) + " --backend cpu");
  EXPECT_TRUE(r.exited_with(0)) << r.how() << "\n" << r.err;
  EXPECT_EQ(slurp(earlier), "the killed run's records");
  EXPECT_EQ(time_records(out), 4);
  EXPECT_EQ(partial_files(dir.path()), std::vector<std::string>{earlier});
}
