// The files of a run, tried as a user and an adversary would with the bouss executable
// (run/run_files.hpp, docs/runs.md "The files of a run"): two runs of one case at once,
// a restart from another run's checkpoint, outputs pointed at inputs, a run without output
// stopped by a signal, and a restart that continues the files it names.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "io/checkpoint.hpp"
#include "io/run_identity.hpp"
#include "run/restart_compatibility.hpp"
#include "convection_case.hpp"
#include "netcdf_compare.hpp"
#include "process.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace bouss::test;

namespace {

// Convection at 16x16x8 on the CPU (well under a millisecond a step): two streams, out/rb.nc
// (fields every 20 steps) and out/rb_profiles.nc (profiles every 10), as the audit's case.
std::string write_case(const ScratchDir& dir, const std::string& name, const std::string& extra = "") {
  const std::string path = dir.file(name);
  std::ofstream(path) << convection_case_json("files", "[16, 16, 8]", 1, R"("time": {"end": 1e9},
  "output": [{"file": "out/rb.nc", "interval_steps": 20},
             {"file": "out/rb_profiles.nc", "interval_steps": 10, "profiles": true}])" + extra);
  return path;
}

struct Ran {
  int code;
  std::string err, out;
};

// bouss ARGS in `cwd`, to its end.
Ran run_in(const ScratchDir& dir, const std::vector<std::string>& args) {
  static int calls = 0;
  const std::string tag = std::to_string(++calls);
  BoussProcess p(args, dir.file("out_" + tag), dir.file("err_" + tag), {}, dir.path().string());
  const int status = p.wait();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), p.err(), p.out()};
}

std::string run_id_of(const std::string& path, const std::string& attribute) {
  return bouss::file_text_attribute(path, attribute);
}

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

// Two runs of one case started in one folder shared checkpoint names: they overwrote and
// deleted each other's STEM.checkpoint.N.nc. A live run now claims its names: the second is
// refused before it computes anything, and the first's checkpoints are its own.
TEST(RunFiles, ASecondLiveRunOfTheSameNamesIsRefusedAndTheFirstsCheckpointsStayItsOwn) {
  ScratchDir dir("two_runs");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 100, "keep": 10})");
  BoussProcess first({"run", c, "--progress", "0"}, dir.file("a_out"), dir.file("a_err"), {}, dir.path().string());
  ASSERT_TRUE(wait_until([&] { return fs::exists(dir.file("out/rb.checkpoint.300.nc")) || !first.running(); }))
      << first.err();
  ASSERT_TRUE(first.running()) << first.err();
  // (Bounded, so that a build without the claim fails here instead of running forever.)
  const Ran second =
      run_in(dir, {"run", c, "--set", "initial.perturbation.seed=2", "--set", "time.steps=2000", "--progress", "0"});
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_NE(second.err.find("is being written by another live run (pid"), std::string::npos) << second.err;
  EXPECT_EQ(lines(second.err), 1) << second.err;
  first.signal(SIGTERM);
  ASSERT_EQ(WEXITSTATUS(first.wait()), 143) << first.err();
  // Every checkpoint of the stem is the first run's, and names the run its output names.
  const std::string id = run_id_of(dir.file("out/rb.nc"), bouss::output_run_id_attribute);
  ASSERT_EQ(id.size(), 32u);
  int checkpoints = 0;
  for (const auto& e : fs::directory_iterator(dir.file("out"))) {
    const std::string name = e.path().filename().string();
    if (name.find(".checkpoint.") == std::string::npos || e.path().extension() != ".nc") continue;
    ++checkpoints;
    EXPECT_EQ(run_id_of(e.path().string(), "text.run_id"), id) << name;
  }
  EXPECT_GE(checkpoints, 3);
  EXPECT_FALSE(fs::exists(dir.file("out/rb.nc.lock"))) << "the claim goes with the run";
}

// A checkpoint a killed run was writing stays as STEM.checkpoint.N.nc.PID.partial (tens of
// GiB for a large run). The next run of the stem removes it once it holds the stem's claim,
// and says so; a partial of another stem, or an output's, stays.
TEST(RunFiles, ARunRemovesTheHalfCheckpointAKilledRunLeft) {
  ScratchDir dir("half_checkpoint");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  fs::create_directories(dir.file("out"));
  for (const char* name : {"out/rb.checkpoint.40.nc.4242.partial", "out/other.checkpoint.40.nc.4242.partial",
                           "out/rb.checkpoint.40.nc.x.partial", "out/rb.nc.4242.partial"})
    std::ofstream(dir.file(name)) << "half";
  const Ran r = run_in(dir, {"run", c, "--set", "time.steps=10", "--progress", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out/rb.checkpoint.40.nc.4242.partial")));
  EXPECT_NE(r.out.find("removed out/rb.checkpoint.40.nc.4242.partial, a checkpoint a killed run was writing"),
            std::string::npos)
      << r.out;
  for (const char* kept : {"out/other.checkpoint.40.nc.4242.partial", "out/rb.checkpoint.40.nc.x.partial",
                           "out/rb.nc.4242.partial"})
    EXPECT_TRUE(fs::exists(dir.file(kept))) << kept;
}

// A restart that would continue a file refuses a checkpoint that another run wrote: before,
// it continued the other run's flow in the file with exit 0 (one file, two flows, time
// running backwards). An earlier run's files are replaced only with --overwrite, which
// removes that run's checkpoints of the stem too.
TEST(RunFiles, ARestartNeverContinuesAFileFromAnotherRunsCheckpoint) {
  ScratchDir dir("other_run");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=20", "--progress", "0"}).code, 0);
  fs::copy_file(dir.file("out/rb.checkpoint.10.nc"), dir.file("first_run_10.nc"));
  const Ran refused = run_in(dir, {"run", c, "--set", "initial.perturbation.seed=2", "--set", "time.steps=30"});
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("out/rb.nc exists, an earlier run's output: pass --overwrite"), std::string::npos)
      << refused.err;
  const Ran second = run_in(dir, {"run", c, "--set", "initial.perturbation.seed=2", "--set", "time.steps=30",
                                  "--overwrite", "--progress", "0"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_FALSE(fs::exists(dir.file("out/rb.checkpoint.10.nc")) &&
               run_id_of(dir.file("out/rb.checkpoint.10.nc"), "text.run_id") ==
                   run_id_of(dir.file("first_run_10.nc"), "text.run_id"))
      << "--overwrite leaves no checkpoint of the earlier run under the stem";
  const std::string before = slurp(dir.file("out/rb.nc"));
  const Ran mixed = run_in(dir, {"run", c, "--set", "time.steps=40", "--restart", "first_run_10.nc"});
  EXPECT_EQ(mixed.code, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("another run wrote the file"), std::string::npos) << mixed.err;
  EXPECT_EQ(lines(mixed.err), 1) << mixed.err;
  EXPECT_TRUE(slurp(dir.file("out/rb.nc")) == before) << "the second run's file is untouched";
  // Into a new file it may go on.
  EXPECT_EQ(run_in(dir, {"run", c, "--set", "time.steps=40", "--restart", "first_run_10.nc", "--output", "new.nc"}).code, 0);
}

// An output may not be an input of the run (its case file, the checkpoint it restarts from),
// another stream's file by another name, or one of its checkpoint names, whatever --overwrite
// says: before, the case file became an HDF5 file and a checkpoint was replaced, exit 0.
TEST(RunFiles, AnOutputIsNeverAnInputAnotherStreamsFileOrACheckpointOfTheRun) {
  ScratchDir dir("onto_inputs");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  const std::string case_text = [&] {
    std::ifstream in(c);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  const Ran onto_case = run_in(dir, {"run", c, "--set", "time.steps=5", "--output", "case.json", "--overwrite"});
  EXPECT_EQ(onto_case.code, 2) << onto_case.err;
  EXPECT_NE(onto_case.err.find("is the case file"), std::string::npos) << onto_case.err;
  {
    std::ifstream in(c);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), case_text);
  }
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=20", "--progress", "0"}).code, 0);
  const std::string checkpoint = dir.file("out/rb.checkpoint.10.nc");
  const auto saved = fs::file_size(checkpoint);
  const Ran onto_checkpoint = run_in(dir, {"run", c, "--set", "time.steps=30", "--restart", checkpoint, "--output",
                                           "out/rb.checkpoint.10.nc", "--overwrite"});
  EXPECT_EQ(onto_checkpoint.code, 2) << onto_checkpoint.err;
  EXPECT_NE(onto_checkpoint.err.find("is the checkpoint this run restarts from"), std::string::npos)
      << onto_checkpoint.err;
  EXPECT_EQ(fs::file_size(checkpoint), saved);
  const Ran as_checkpoint = run_in(dir, {"run", c, "--set", "time.steps=5", "--set", "checkpoint.file=\"x\"",
                                         "--set", "output.0.file=\"x.checkpoint.20.nc\"", "--overwrite"});
  EXPECT_EQ(as_checkpoint.code, 2) << as_checkpoint.err;
  EXPECT_NE(as_checkpoint.err.find("is a name of this run's checkpoints"), std::string::npos) << as_checkpoint.err;
  // Two streams reaching one file through a symbolic link.
  fs::create_directories(dir.file("links"));
  std::ofstream(dir.file("links/real.nc")) << "";
  fs::create_symlink("real.nc", dir.file("links/alias.nc"));
  const Ran linked = run_in(dir, {"run", c, "--set", "time.steps=5", "--set", "output.0.file=\"links/real.nc\"", "--set",
                                  "output.1.file=\"links/alias.nc\"", "--overwrite"});
  EXPECT_EQ(linked.code, 2) << linked.err;
  EXPECT_NE(linked.err.find("the same file by another name"), std::string::npos) << linked.err;
  EXPECT_EQ(lines(linked.err), 1) << linked.err;
}

// A run without output has a checkpoint home named from the case (output/<name>): SIGUSR1
// wrote a hidden ./.checkpoint.N.nc, and SIGINT and the wall-clock limit wrote none, while
// the run exited 130 or 0 and printed a restart command naming a file that did not exist.
TEST(RunFiles, ARunWithoutOutputCheckpointsUnderTheCasesNameOnEveryStop) {
  ScratchDir dir("no_output");
  const std::string c = write_case(dir, "case.json");
  BoussProcess p({"run", c, "--set", "output=[]", "--progress", "0"}, dir.file("p_out"), dir.file("p_err"), {},
                 dir.path().string());
  ASSERT_TRUE(wait_until([&] { return fs::exists(dir.file("p_out")) && slurp(dir.file("p_out")).find("pressure:") != std::string::npos; }));
  p.signal(SIGUSR1);
  ASSERT_TRUE(wait_until([&] { return slurp(dir.file("p_out")).find("checkpoint output/files.checkpoint.") != std::string::npos; }))
      << p.out() << p.err();
  p.signal(SIGINT);
  ASSERT_EQ(WEXITSTATUS(p.wait()), 130) << p.err();
  const std::string log = p.out();
  const auto at = log.find("--restart ");
  ASSERT_NE(at, std::string::npos) << log;
  const std::string named = log.substr(at + 10, log.find('\n', at) - at - 10);
  EXPECT_TRUE(fs::exists(dir.path() / named)) << "the printed restart names a checkpoint that exists: " << named;
  EXPECT_EQ(named.rfind("output/files.checkpoint.", 0), 0u) << named;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_NE(e.path().filename().string().rfind(".checkpoint", 0), 0u) << "no hidden checkpoint";
  // The wall-clock limit stops with a checkpoint too.
  const Ran walled = run_in(dir, {"run", c, "--set", "output=[]", "--wall-limit", "00:00:01", "--progress", "0",
                                  "--overwrite"});
  EXPECT_EQ(walled.code, 0) << walled.err;
  EXPECT_NE(walled.out.find("--restart output/files.checkpoint."), std::string::npos) << walled.out;
}

// A restart continues every file of the run it continues (the checkpoint names them), unless
// told otherwise: a run started with --output and restarted without it wrote its first
// stream to the case's own path and continued the others: one run's files split.
TEST(RunFiles, ARestartWithoutOutputContinuesEveryFileTheCheckpointNames) {
  ScratchDir dir("restart_files");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 20})");
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=40", "--output", "mine.nc", "--progress", "0"}).code, 0);
  const Ran restart = run_in(dir, {"run", c, "--set", "time.steps=60", "--restart", "mine.checkpoint.40.nc"});
  ASSERT_EQ(restart.code, 0) << restart.err;
  EXPECT_FALSE(fs::exists(dir.file("out/rb.nc"))) << "the case's own path is not this run's";
  EXPECT_FALSE(fs::exists(dir.file("out/rb_profiles.nc")));
  // Records at steps 0, 20, 40, 60 of the fields and every 10 steps of the profiles: an
  // uninterrupted run's.
  EXPECT_EQ(read_variables(dir.file("mine.nc")).at("time").size(), 4u);
  EXPECT_EQ(read_variables(dir.file("mine_profiles.nc")).at("profile_time").size(), 7u);
  EXPECT_TRUE(fs::exists(dir.file("mine.checkpoint.60.nc")));
}

namespace {
std::vector<std::string> partial_files(const ScratchDir& dir, const std::string& folder) {
  std::vector<std::string> found;
  if (!fs::exists(dir.file(folder))) return found;
  for (const auto& e : fs::directory_iterator(dir.file(folder)))
    if (e.path().extension() == ".partial") found.push_back(e.path().string());
  return found;
}
}  // namespace

// A restart whose file holds fewer records than its checkpoint counts (here the profiles of an
// earlier point of the same run, copied back) cannot continue it: refused with exit 2 and
// nothing of the restart left (it exited 1 and left an empty partial file).
TEST(RunFiles, ARestartThatCannotContinueItsFilesIsRefusedAndLeavesNothing) {
  ScratchDir dir("short_file");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=10", "--progress", "0"}).code, 0);
  fs::copy_file(dir.file("out/rb_profiles.nc"), dir.file("early_profiles.nc"));
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=30", "--restart", "out/rb.checkpoint.10.nc"}).code, 0);
  fs::copy_file(dir.file("early_profiles.nc"), dir.file("out/rb_profiles.nc"), fs::copy_options::overwrite_existing);
  const std::string fields = slurp(dir.file("out/rb.nc"));
  const Ran restart = run_in(dir, {"run", c, "--set", "time.steps=40", "--restart", "out/rb.checkpoint.30.nc"});
  EXPECT_EQ(restart.code, 2) << restart.err;
  EXPECT_NE(restart.err.find("rb_profiles.nc"), std::string::npos) << restart.err;
  EXPECT_EQ(lines(restart.err), 1) << restart.err;
  EXPECT_TRUE(partial_files(dir, "out").empty()) << "the refused restart left a partial file";
  EXPECT_TRUE(slurp(dir.file("out/rb.nc")) == fields);
}

// Under a file size limit (ulimit -f) a run either cannot start, and is refused (exit 2) with
// nothing left, or fails later while running (exit 1) with its partial files holding what was
// flushed: never a failed start that exits 1 and leaves stray partial files behind.
TEST(RunFiles, AFileSizeLimitRefusesARunThatCannotWriteItsFirstRecords) {
  ScratchDir dir("file_limit");
  const std::string c = write_case(dir, "case.json");
  bool refused = false, failed_later = false;
  for (int kib = 100; kib <= 600; kib += 25) {
    fs::remove_all(dir.file("out"));
    const std::string err = dir.file("limit_err");
    const std::string command = "cd '" + dir.path().string() + "' && ulimit -f " + std::to_string(kib) + " && '" +
                                bouss_exe() + "' run case.json --set time.steps=200 --progress 0 >/dev/null 2>'" + err + "'";
    const int status = std::system(("bash -c \"" + command + "\"").c_str());
    const int code = WEXITSTATUS(status);
    const std::string said = slurp(err);
    SCOPED_TRACE("ulimit -f " + std::to_string(kib) + ": " + said);
    ASSERT_TRUE(WIFEXITED(status));
    if (code == 2) {
      refused = true;
      EXPECT_TRUE(partial_files(dir, "out").empty()) << "a run refused at its start leaves nothing";
      EXPECT_FALSE(fs::exists(dir.file("out/rb.nc")));
    } else if (code == 1) {
      failed_later = true;
      EXPECT_EQ(said.find("snapshot 0 "), std::string::npos) << "the first records are the start's";
      EXPECT_EQ(said.find("diagnostics record 0 "), std::string::npos);
      EXPECT_FALSE(partial_files(dir, "out").empty()) << "a run that failed keeps what it flushed";
    } else {
      EXPECT_EQ(code, 0);
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_TRUE(failed_later);
}

// Checkpoints written before runs had ids (no text.run_id) still restart, with a warning that
// their files' run cannot be checked; their run's other checkpoints count as its own.
TEST(RunFiles, ACheckpointWrittenBeforeRunIdsStillRestarts) {
  ScratchDir dir("legacy_checkpoint");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=20", "--progress", "0"}).code, 0);
  for (const char* step : {"10", "20"}) {
    const std::string path = dir.file(std::string("out/rb.checkpoint.") + step + ".nc");
    bouss::Checkpoint ck = bouss::read_checkpoint(path);
    ASSERT_EQ(ck.text.erase(bouss::checkpoint_run_id_key), 1u);
    fs::remove(path);
    bouss::write_checkpoint(path, ck);
  }
  const Ran restart = run_in(dir, {"run", c, "--set", "time.steps=30", "--restart", "out/rb.checkpoint.20.nc"});
  EXPECT_EQ(restart.code, 0) << restart.err;
  EXPECT_NE(restart.out.find("was written before checkpoints named their run"), std::string::npos) << restart.out;
  EXPECT_EQ(read_variables(dir.file("out/rb.nc")).at("time").size(), 3u) << "steps 0, 20 and 30";
}

// A run's folder copied (or moved) whole and restarted there continues the copy's files: a
// checkpoint names its run's files relative to its own folder. (With the absolute paths alone,
// the restart in the copy continued the files of the original folder.)
TEST(RunFiles, ARestartInACopiedFolderContinuesTheCopysFiles) {
  ScratchDir dir("copied_folder");
  fs::create_directories(dir.file("a"));
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 20})");
  BoussProcess first({"run", c, "--set", "time.steps=40", "--progress", "0"}, dir.file("o1"), dir.file("e1"), {},
                     dir.file("a"));
  ASSERT_EQ(WEXITSTATUS(first.wait()), 0) << first.err();
  fs::copy(dir.file("a"), dir.file("b"), fs::copy_options::recursive);
  const std::string original = slurp(dir.file("a/out/rb.nc"));
  BoussProcess restart({"run", c, "--set", "time.steps=60", "--restart", "out/rb.checkpoint.40.nc"}, dir.file("o2"),
                       dir.file("e2"), {}, dir.file("b"));
  ASSERT_EQ(WEXITSTATUS(restart.wait()), 0) << restart.err();
  EXPECT_TRUE(slurp(dir.file("a/out/rb.nc")) == original) << "the original folder is untouched";
  EXPECT_EQ(read_variables(dir.file("b/out/rb.nc")).at("time").size(), 4u) << "the copy continued: steps 0, 20, 40, 60";
}

// A checkpoint records the pressure solver its run resolved (text.pressure_solver). A restart
// whose case leaves the choice to auto, where auto now picks another solver (as when a solver
// is added), continues with one warning that the continuation is not bit for bit; a case that
// names another solver than the checkpoint's is refused, naming /pressure/solver.
TEST(RunFiles, ARestartSeesTheSolverTheCheckpointsRunUsed) {
  ScratchDir dir("recorded_solver");
  const std::string c = write_case(dir, "case.json", R"(, "checkpoint": {"interval_steps": 10})");
  ASSERT_EQ(run_in(dir, {"run", c, "--set", "time.steps=20", "--progress", "0"}).code, 0);
  const std::string path = dir.file("out/rb.checkpoint.20.nc");
  bouss::Checkpoint ck = bouss::read_checkpoint(path);
  EXPECT_EQ(ck.text.at(bouss::checkpoint_solver_key), "direct") << "auto's choice for periodic sides and plates";
  // As if the checkpointing run's auto had picked the point multigrid.
  ck.text[bouss::checkpoint_solver_key] = "multigrid";
  fs::remove(path);
  bouss::write_checkpoint(path, ck);
  const Ran named = run_in(dir, {"run", c, "--set", "time.steps=30", "--set", "pressure.solver=\"fft\"", "--restart",
                                 "out/rb.checkpoint.20.nc"});
  EXPECT_EQ(named.code, 2) << named.err;
  EXPECT_NE(named.err.find("/pressure/solver: the checkpoint has \"multigrid\", the case \"direct\""), std::string::npos)
      << named.err;
  const Ran automatic = run_in(dir, {"run", c, "--set", "time.steps=30", "--restart", "out/rb.checkpoint.20.nc"});
  EXPECT_EQ(automatic.code, 0) << automatic.err;
  const std::string log = automatic.out + automatic.err;
  const auto warned = log.find("now picks \"direct\"");
  ASSERT_NE(warned, std::string::npos) << log;
  EXPECT_EQ(log.find("now picks", warned + 1), std::string::npos) << "one warning: " << log;
  EXPECT_NE(log.find("not bit for bit"), std::string::npos) << log;
}
