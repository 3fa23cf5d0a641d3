// `mpirun -np N bouss run` as a user starts it: one output file with the fields of a run on
// one rank, checkpoints that restart on another rank count, and a failure of one rank that
// stops them all. Skipped (visibly) in a build without MPI.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <netcdf.h>
#include <nlohmann/json.hpp>

#include "checkpoint_format2.hpp"
#include "io/checkpoint.hpp"
#include "mpi_run_checks.hpp"

namespace bouss::test {
namespace {

// Files written by 1, 2, 3 and 4 ranks (every rank its block of each record, where the build
// has parallel NetCDF) hold what one rank's do: the same dimensions, variables and attributes
// (but the run's own: history, identity, ranks, its file names in the case), every variable
// within 1e-12 (the fields, coordinates, bounds, profiles, series, time means), in double and
// float, compressed or not.
TEST(MpiRuns, RanksWriteOneFileWithTheFieldsOfOneRank) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_runs");
  const std::set<std::string> the_runs_own = {"history", "bouss_run_id", "mpi_ranks", "decomposition", "case_json"};
  const Finished one = run_case(dir, "one", 0);
  ASSERT_TRUE(one.ok()) << one.err;
  EXPECT_EQ(int_attribute(dir.file("one.nc"), "mpi_ranks"), 1);
  for (const auto& [ranks, grid] : std::vector<std::pair<int, std::string>>{{2, "2x1"}, {3, "3x1"}, {4, "2x2"}}) {
    const std::string tag = "ranks" + std::to_string(ranks);
    const Finished cut = run_case(dir, tag, ranks, {"--decomposition", grid});
    ASSERT_TRUE(cut.ok()) << cut.err;
    for (const char* file : {".nc", "_profiles.nc", "_means.nc", "_plane.nc", "_float.nc"}) {
      EXPECT_LE(relative_difference(dir.file(tag + file), dir.file(std::string("one") + file), {}), 1e-12)
          << grid << ": " << file;
      EXPECT_EQ(layout_difference(dir.file(tag + file), dir.file(std::string("one") + file), the_runs_own), "")
          << grid << ": " << file;
    }
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
    EXPECT_NE(cut.out.find("output: every rank writes its own block of each record"), std::string::npos) << cut.out;
#endif
    EXPECT_EQ(int_attribute(dir.file(tag + ".nc"), "mpi_ranks"), ranks);
    EXPECT_EQ(text_attribute(dir.file(tag + ".nc"), "decomposition"), grid);
    EXPECT_NE(cut.out.find(std::to_string(ranks) + " ranks, process grid " + grid), std::string::npos) << cut.out;
  }
}

// The runs on the z slabs (2x1, 2x2), whose direct solve is one rank's arithmetic on any
// count: what they compare is the checkpoint, to 1e-12 (`auto`'s 1xP solves the y lines
// across the ranks, round-off apart on each count, which a few hundred steps of convection
// amplify to 1e-11 in the time means).
TEST(MpiRuns, ACheckpointOfFourRanksRestartsOnTwo) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_restart");
  const std::vector<std::string> on_two = {"--decomposition", "2x1"};
  const Finished two = run_case(dir, "two", 2, on_two);  // uninterrupted, on two ranks
  ASSERT_TRUE(two.ok()) << two.err;
  const Finished four = run_case(dir, "four", 4, {"--decomposition", "2x2"});
  ASSERT_TRUE(four.ok()) << four.err;
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
  // Every rank wrote its block of each checkpoint (parallel NetCDF), and the log says so.
  EXPECT_NE(four.out.find("checkpoints: every rank writes and reads its own block"), std::string::npos) << four.out;
  EXPECT_NE(four.out.find("; every rank its block)"), std::string::npos) << four.out;
#endif
  // The checkpoint four ranks wrote at t = 1 (the first: step 14 or so), continued on two.
  std::string checkpoint;
  for (int step = 1; step < 100 && checkpoint.empty(); ++step) {
    struct stat st;
    const std::string path = dir.file("four.checkpoint." + std::to_string(step) + ".nc");
    if (::stat(path.c_str(), &st) == 0) checkpoint = path;
  }
  ASSERT_FALSE(checkpoint.empty()) << "no checkpoint of the four-rank run";
  const Finished restarted = run_case(dir, "four", 2, {"--restart", checkpoint, "--decomposition", "2x1"});
  ASSERT_TRUE(restarted.ok()) << restarted.err;
  EXPECT_LE(relative_difference(dir.file("four.nc"), dir.file("two.nc")), 1e-12);
  // The time averages' window open at the checkpoint (t = 1, inside [0.8, 1.6]) continues too.
  for (const char* means : {"_means.nc", "_plane.nc"})
    EXPECT_LE(relative_difference(dir.file(std::string("four") + means), dir.file(std::string("two") + means), {}), 1e-12)
        << means;
  EXPECT_EQ(read_variables(dir.file("four_means.nc")).at("time"), (std::vector<double>{0.8, 1.6, 2}));
  // On the same count, bit for bit: two ranks from two ranks' checkpoint.
  std::string two_checkpoint = checkpoint;
  two_checkpoint.replace(two_checkpoint.find("four.checkpoint"), 4, "two");
  const Finished again = run_case(dir, "two", 2, {"--restart", two_checkpoint, "--decomposition", "2x1"});
  ASSERT_TRUE(again.ok()) << again.err;
  const Finished reference = run_case(dir, "two_reference", 2, on_two);
  ASSERT_TRUE(reference.ok()) << reference.err;
  const auto a = read_variables(dir.file("two.nc")), b = read_variables(dir.file("two_reference.nc"));
  for (const char* name : {"T", "u", "v", "w", "p"}) EXPECT_EQ(a.at(name), b.at(name)) << name;
  for (const char* means : {"_means.nc", "_plane.nc"})
    EXPECT_EQ(bitwise_difference(dir.file(std::string("two") + means), dir.file(std::string("two_reference") + means)), "")
        << means;
}

// A checkpoint of format 2 (before format 3: the time averages' sums in one flat array,
// HDF5's checksums) still restarts: on one rank the run ends where the uninterrupted one
// does, bit for bit, every averaged file included; on two ranks (each its part of the flat
// sums) within 1e-12, on the z slabs (2x1: one rank's arithmetic in the direct solve; every
// variable is compared, max_divergence's round-off too).
TEST(MpiRuns, AFormat2CheckpointStillRestarts) {
  ScratchDir dir("format2");
  const Finished reference = run_case(dir, "ref", 0);
  ASSERT_TRUE(reference.ok()) << reference.err;
  for (const int ranks : {0, 2}) {
    if (ranks && mpirun_launcher(1).empty()) continue;  // no MPI in this build
    const std::string tag = "cut" + std::to_string(ranks);
    const std::vector<std::string> slabs = ranks ? std::vector<std::string>{"--decomposition", "2x1"} : std::vector<std::string>{};
    const Finished cut = run_case(dir, tag, ranks, slabs);
    ASSERT_TRUE(cut.ok()) << cut.err;
    std::string checkpoint;  // the first, at t = 1: inside the averages' window [0.8, 1.6]
    for (int step = 1; step < 100 && checkpoint.empty(); ++step)
      if (std::filesystem::exists(dir.file(tag + ".checkpoint." + std::to_string(step) + ".nc")))
        checkpoint = dir.file(tag + ".checkpoint." + std::to_string(step) + ".nc");
    ASSERT_FALSE(checkpoint.empty());
    const Checkpoint v3 = read_checkpoint(checkpoint);
    const Checkpoint v2 = test::as_format_2(v3);
    ASSERT_LT(v2.arrays.size(), v3.arrays.size()) << "no time averages' sums to carry";
    test::write_format_2(checkpoint, v2);
    ASSERT_EQ(read_checkpoint(checkpoint).version, 2);
    std::vector<std::string> restart = {"--restart", checkpoint};
    restart.insert(restart.end(), slabs.begin(), slabs.end());
    const Finished restarted = run_case(dir, tag, ranks, restart);
    ASSERT_TRUE(restarted.ok()) << restarted.err;
    for (const char* file : {".nc", "_means.nc", "_plane.nc", "_profiles.nc"}) {
      if (ranks == 0)
        EXPECT_EQ(bitwise_difference(dir.file(tag + file), dir.file(std::string("ref") + file)), "") << file;
      else
        EXPECT_LE(relative_difference(dir.file(tag + file), dir.file(std::string("ref") + file), {}), 1e-12) << file;
    }
  }
}

// One value of a checkpoint changed on disk: a restart on one rank, and on two (each
// checking its part of the array's checksum), stops with one line naming the array.
TEST(MpiRuns, ARestartFromADamagedCheckpointStopsWithOneLine) {
  ScratchDir dir("damaged");
  const std::vector<std::string> args = {"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--progress", "0",
                                         "--set", "grid.n=[32,16,16]", "--set", "time.steps=4", "--set", "output=[]",
                                         "--set", "checkpoint.interval_steps=2", "--set", "checkpoint.file=" + dir.file("c")};
  BoussProcess first(args, dir.file("first.out"), dir.file("first.err"));
  ASSERT_EQ(first.wait(), 0) << first.err();
  const std::string path = dir.file("c.checkpoint.2.nc");
  int ncid = -1, varid = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_WRITE, &ncid), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(ncid, "theta", &varid), NC_NOERR);
  const std::size_t at[3] = {9, 3, 30};  // on the second of two ranks' blocks
  double value = 0;
  ASSERT_EQ(nc_get_var1_double(ncid, varid, at, &value), NC_NOERR);
  value = std::nextafter(value, 1e300);
  ASSERT_EQ(nc_put_var1_double(ncid, varid, at, &value), NC_NOERR);
  ASSERT_EQ(nc_close(ncid), NC_NOERR);
  for (const int ranks : {0, 2}) {
    if (ranks && mpirun_launcher(1).empty()) continue;  // no MPI in this build
    std::vector<std::string> again = args;
    again.insert(again.end(), {"--restart", path});
    const std::string tag = "again" + std::to_string(ranks);
    BoussProcess p(again, dir.file(tag + ".out"), dir.file(tag + ".err"),
                   ranks ? mpirun_launcher(ranks) : std::vector<std::string>{});
    const int status = p.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << ranks << " ranks";
    EXPECT_NE(p.err().find("bouss: error: checkpoint " + path + ": damaged: array 'theta' does not match its checksum"),
              std::string::npos)
        << p.err();
  }
}

// A run that starts from another run's file (initial.from) onto a finer grid: on two and
// three ranks (each rank its block of the carried fields, the projection on the blocks) the
// file of one rank.
TEST(MpiRuns, ARunFromAnotherRunsStateOnRanksIsOneRanks) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_initial");
  ASSERT_TRUE(run_case(dir, "src", 0).ok());
  const std::vector<std::string> from = {"--set", "initial={\"from\": \"" + dir.file("src.nc") + "\", \"record\": 2}",
                                         "--set", "grid.n=[48,24,24]", "--set", "time.end=0.5"};
  const Finished one = run_case(dir, "one", 0, from);
  ASSERT_TRUE(one.ok()) << one.err;
  for (int ranks : {2, 3}) {
    const std::string tag = "ranks" + std::to_string(ranks);
    const Finished cut = run_case(dir, tag, ranks, from);
    ASSERT_TRUE(cut.ok()) << cut.err;
    EXPECT_LE(relative_difference(dir.file(tag + ".nc"), dir.file("one.nc")), 1e-12) << ranks << " ranks";
  }
}

TEST(MpiRuns, ARankThatCannotWriteStopsThemAll) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_fail");
  // The writer rank refuses the output folder (a file stands where it should be); the
  // others, which write nothing, stop with it: one error line, exit 2, no hang.
  { std::ofstream(dir.file("blocked")) << "x"; }
  std::vector<std::string> args = {"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu",
                                   "--set", "grid.n=[32,16,16]", "--output", dir.file("blocked/out.nc")};
  BoussProcess p(args, dir.file("fail.out"), dir.file("fail.err"), mpirun_launcher(3));
  ASSERT_TRUE(wait_until([&] { return !p.running(); }, 60)) << "the ranks hung";
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0);
  const std::string err = p.err();
  EXPECT_NE(err.find("bouss: error: "), std::string::npos) << err;
  EXPECT_NE(err.find("blocked"), std::string::npos) << err;
}

// The disk fills (a file size limit, ulimit -f, on every rank, fails writes as a full disk
// does) under ranks that write the file together (each its block; through rank 0 in a build
// without parallel NetCDF): the ranks' writers agree that the record does not fit before any
// of it is written, and every rank stops with the one line, exit 2, no hang (the ranks used
// to wait in the next gather, or a collective write, for ever).
TEST(MpiRuns, AFullDiskOnTheWriterStopsEveryRankWithItsLine) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_full");
  // A record of 5 fields of 128 x 128 x 32 doubles (21 MB) against 8 MiB.
  const std::vector<std::string> launcher = mpirun_with_file_size_limit(2, 8192);
  BoussProcess p({"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--set", "grid.n=[128,128,32]",
                  "--set", "time.steps=4", "--output", dir.file("full.nc")},
                 dir.file("full.out"), dir.file("full.err"), launcher);
  ASSERT_TRUE(wait_until([&] { return !p.running(); }, 60)) << "the ranks hung";
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  const std::string err = p.err();
  EXPECT_NE(err.find("bouss: error: netCDF output " + dir.file("full.nc")), std::string::npos) << err;
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
}

// A checkpoint the ranks write together that the file size limit (ulimit -f) cannot take:
// every rank stops with one line naming the limit, nothing half-written under its name, no
// hang (HDF5 allocates a parallel file's chunks in collective calls while it defines them: a
// rank failing inside one left the others waiting in it).
TEST(MpiRuns, ACheckpointOverTheFileSizeLimitStopsEveryRankWithOneLine) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_fsize");
  const std::vector<std::string> launcher = mpirun_with_file_size_limit(2, 8192);
  BoussProcess p({"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--set", "grid.n=[128,128,32]",
                  "--set", "time.steps=4", "--set", "output=[]", "--set", "checkpoint.interval_steps=2", "--set",
                  "checkpoint.file=" + dir.file("c")},
                 dir.file("fsize.out"), dir.file("fsize.err"), launcher);
  ASSERT_TRUE(wait_until([&] { return !p.running(); }, 60)) << "the ranks hung";
  EXPECT_NE(p.wait(), 0);
  const std::string err = p.err();
  EXPECT_NE(err.find("bouss: error: checkpoint " + dir.file("c.checkpoint.2.nc")), std::string::npos) << err;
  EXPECT_NE(err.find("file size limit"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("c.checkpoint.2.nc")));
}


// kill -9 of one rank while the ranks write a checkpoint together: the job ends, the
// checkpoint being written never appears under its name (only its partial file may stay),
// the one before it is whole, and a restart from it on the same ranks ends where the
// uninterrupted run does, bit for bit.
TEST(MpiRuns, KillingARankMidCheckpointKeepsTheEarlierOne) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_kill");
  const std::vector<std::string> common = {"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu",
                                           "--progress", "0", "--set", "grid.n=[128,128,32]", "--set",
                                           "time.steps=8", "--set", "checkpoint.interval_steps=2", "--set",
                                           "checkpoint.keep=10"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = common;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  BoussProcess reference(with({"--output", dir.file("ref.nc")}), dir.file("ref.out"), dir.file("ref.err"),
                         mpirun_launcher(2));
  ASSERT_EQ(reference.wait(), 0) << reference.err();
  BoussProcess killed(with({"--output", dir.file("k.nc")}), dir.file("k.out"), dir.file("k.err"), mpirun_launcher(2));
  // The second checkpoint's partial file appears: the ranks are writing it.
  const std::string second = dir.file("k.checkpoint.4.nc");
  auto writing = [&] {
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
      if (e.path().string().rfind(second + ".", 0) == 0 && e.path().string().find(".partial") != std::string::npos)
        return true;
    return false;
  };
  ASSERT_TRUE(wait_until([&] { return writing() || std::filesystem::exists(second) || !killed.running(); }, 120))
      << "no checkpoint started";
  ASSERT_TRUE(killed.running()) << "the run ended before the kill";
  const pid_t victim = rank_pid(1, dir.path().string());
  ASSERT_GT(victim, 0) << "rank 1 not found";
  ::kill(victim, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !killed.running(); }, 60)) << "the job outlived its killed rank";
  EXPECT_NE(killed.wait(), 0);
  // A checkpoint under its name is a whole one (the kill may land after the rename).
  if (std::filesystem::exists(second)) EXPECT_NO_THROW(read_checkpoint(second)) << "half a checkpoint under its name";
  const std::string first = dir.file("k.checkpoint.2.nc");
  ASSERT_NO_THROW(read_checkpoint(first)) << "the checkpoint before the kill is whole";
  std::vector<std::string> left;  // the killed run's half checkpoint, if the kill came before its rename
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().string().rfind(second + ".", 0) == 0) left.push_back(e.path().string());
  BoussProcess restarted(with({"--output", dir.file("k.nc"), "--restart", first}), dir.file("r.out"),
                         dir.file("r.err"), mpirun_launcher(2));
  ASSERT_EQ(restarted.wait(), 0) << restarted.err();
  // The restart removes it (it holds the stem's claim: no live run writes it) and says so.
  for (const std::string& partial : left) {
    EXPECT_FALSE(std::filesystem::exists(partial)) << partial;
    EXPECT_NE(restarted.out().find("removed " + partial + ", a checkpoint a killed run was writing"), std::string::npos)
        << restarted.out();
  }
  const auto a = read_variables(dir.file("k.nc")), b = read_variables(dir.file("ref.nc"));
  for (const char* name : {"T", "u", "v", "w", "p"}) EXPECT_EQ(a.at(name), b.at(name)) << name;
}

namespace {
// Each rank's peak resident memory (bytes) of `mpirun -np ranks bouss ARGS`, through a
// wrapper that waits for its rank and writes the rank's ru_maxrss to PREFIX.RANK.
std::vector<double> rank_peaks(const ScratchDir& dir, const std::string& prefix, int ranks,
                               const std::vector<std::string>& args, std::string* err) {
  const std::string wrapper = dir.file("peak.py");
  std::ofstream(wrapper) << "import os, sys\n"
                            "pid = os.fork()\n"
                            "if pid == 0:\n    os.execvp(sys.argv[2], sys.argv[2:])\n"
                            "_, status, usage = os.wait4(pid, 0)\n"
                            "open(sys.argv[1] + '.' + os.environ['OMPI_COMM_WORLD_RANK'], 'w').write(str(usage.ru_maxrss * 1024))\n"
                            "sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)\n";
  std::vector<std::string> launcher = mpirun_launcher(ranks);
  // MPI-IO's collective buffer (OMPIO: 32 MiB on each aggregator rank) capped: the I/O
  // library's buffer, not a field.
  launcher.insert(launcher.end(), {"--mca", "io_ompio_bytes_per_agg", "4194304", "python3", wrapper,
                                   dir.file(prefix)});
  BoussProcess p(args, dir.file(prefix + ".out"), dir.file(prefix + ".err"), launcher);
  const int status = p.wait();
  *err = p.err();
  if (status != 0) return {};
  std::vector<double> peaks;
  for (int r = 0; r < ranks; ++r) peaks.push_back(std::stod(slurp(dir.file(prefix + "." + std::to_string(r)))));
  return peaks;
}
}  // namespace

// The memory goal of the ranks' output and checkpoints: no rank allocates a whole field. Four
// ranks write T and w (fp64) every other step with the profiles, and a checkpoint, each rank
// its own block; each rank's peak exceeds every other's by less than half a field (rank 0
// gathered every slab into its ring before: a whole record more), and a restart that
// continues the file peaks on each rank less than half a field above its first run (every
// rank held its block of every array of the checkpoint at once before).
TEST(MpiRuns, NoRankHoldsAWholeFieldWhileWritingOrRestarting) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_peaks");
  const std::vector<std::string> args = {
      "run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--progress", "0",
      "--set", "grid.n=[256,256,256]", "--set", "time.steps=4",
      "--set", "output=[{\"file\": \"" + dir.file("o.nc") + "\", \"interval_steps\": 2, \"fields\": [\"T\", \"w\"], "
               "\"profiles\": true}]",
      "--set", "checkpoint.interval_steps=2", "--set", "checkpoint.file=" + dir.file("ck")};
  const double half_field = 0.5 * 256.0 * 256 * 256 * sizeof(double);
  std::string err;
  const std::vector<double> first = rank_peaks(dir, "first", 4, args, &err);
  ASSERT_EQ(first.size(), 4u) << err;
  const auto [lo, hi] = std::minmax_element(first.begin(), first.end());
  EXPECT_LT(*hi - *lo, half_field) << "peaks " << ::testing::PrintToString(first);
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--restart", dir.file("ck.checkpoint.2.nc")});
  const std::vector<double> restarted = rank_peaks(dir, "restart", 4, again, &err);
  ASSERT_EQ(restarted.size(), 4u) << err;
  for (int r = 0; r < 4; ++r)
    EXPECT_LT(restarted[std::size_t(r)] - first[std::size_t(r)], half_field)
        << "rank " << r << ": " << ::testing::PrintToString(first) << " then " << ::testing::PrintToString(restarted);
  EXPECT_EQ(read_variables(dir.file("o.nc")).at("time").size(), 3u);
}

// A grid too narrow for the ranks: one error line naming the case file and /grid/n, exit 2.
TEST(MpiRuns, AGridTooSmallForTheRanksIsRefusedWithItsPath) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_small");
  BoussProcess p({"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--set", "grid.n=[2,2,16]",
                  "--output", dir.file("x.nc")},
                 dir.file("s.out"), dir.file("s.err"), mpirun_launcher(3));
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  EXPECT_NE(p.err().find("rayleigh_benard.json: /grid/n: cannot cut a grid of 2x2 columns over 3 ranks"), std::string::npos)
      << p.err();
}

// `mpirun -np 3 bouss check`: the report once (the first rank's), its memory line the most
// any rank needs and which rank; a refusal once, exit 2.
TEST(MpiRuns, CheckReportsOnceWithTheLargestRanksMemory) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_check");
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  BoussProcess p({"check", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--set",
                  "pressure.solver=\"multigrid\""},
                 dir.file("c.out"), dir.file("c.err"), mpirun_launcher(3));
  EXPECT_EQ(p.wait(), 0) << p.err();
  EXPECT_EQ(count(p.out(), "case: "), 1) << p.out();
  EXPECT_EQ(count(p.out(), "memory: "), 1) << p.out();
  EXPECT_NE(p.out().find(" of rank 0, the most of the 3 ranks"), std::string::npos) << p.out();  // rank 0: the gathered levels
  BoussProcess big({"check", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--set",
                    "grid.n=[8192,8192,2048]"},
                   dir.file("b.out"), dir.file("b.err"), mpirun_launcher(3));
  const int status = big.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  EXPECT_EQ(count(big.err(), "bouss: error: "), 1) << big.err();
  EXPECT_NE(big.err().find("/grid/n: the run needs"), std::string::npos) << big.err();
}

// SIGUSR2 to mpirun (which forwards it, where after SIGTERM or SIGINT it kills the ranks a
// second later: Open MPI's odls_base_sigkill_timeout) stops every rank at one step with a
// checkpoint and the output closed; mpirun returns the ranks' 140, and the printed restart
// command has the mpirun it needs and names a checkpoint that exists (before: mpirun
// returned 1 and the command lacked `mpirun -np 2`).
TEST(MpiRuns, ASignalStopsEveryRankAtOneStepWithACheckpoint) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_signal");
  std::vector<std::string> args = {"run", source_path("cases/rayleigh_benard.json"), "--backend", "cpu", "--progress", "0",
                                   "--set", "grid.n=[32,16,16]", "--set", "time.end=1e6",
                                   "--output", dir.file("long.nc")};
  BoussProcess p(args, dir.file("sig.out"), dir.file("sig.err"), mpirun_launcher(2));
  // Running: its partial output file is there (the writer rank made it after the first record).
  ASSERT_TRUE(wait_until([&] {
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
      if (e.path().extension() == ".partial") return true;
    return false;
  }, 60)) << p.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  p.signal(SIGUSR2);
  ASSERT_TRUE(wait_until([&] { return !p.running(); }, 60)) << "the ranks did not stop";
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGUSR2) << p.err();
  const std::string out = p.out();
  EXPECT_NE(out.find("checkpoint "), std::string::npos) << out << p.err();
  EXPECT_NE(out.find("wrote " + dir.file("long.nc")), std::string::npos) << out << p.err();
  const auto at = out.find("continue with: mpirun -np 2 ");
  ASSERT_NE(at, std::string::npos) << out;
  const auto named = out.find("--restart ", at);
  ASSERT_NE(named, std::string::npos) << out;
  const std::string checkpoint = out.substr(named + 10, out.find('\n', named) - named - 10);
  EXPECT_TRUE(std::filesystem::exists(checkpoint)) << checkpoint;
}

// Paper 004's no-slip onset at 16x8x16 found on two ranks (2x1) as on one: the same
// critical Rayleigh number to 1e-6 relative.
TEST(MpiRuns, OnsetOnTwoRanksFindsOneRanksCriticalRayleighNumber) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_onset");
  auto rac = [&](int ranks) {
    const std::string tag = "onset" + std::to_string(ranks);
    BoussProcess p({"onset", source_path("cases/onset_no_slip.json"), "--resolutions", "16", "--json", "--backend", "cpu"},
                   dir.file(tag + ".out"), dir.file(tag + ".err"), ranks ? mpirun_launcher(ranks) : std::vector<std::string>{});
    const int status = p.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << p.err();
    const nlohmann::json j = nlohmann::json::parse(p.out(), nullptr, false);
    if (j.is_discarded() || !j.contains("rows") || j["rows"].empty()) {
      ADD_FAILURE() << "no JSON result from " << ranks << " ranks: " << p.out() << p.err();
      return 0.0;
    }
    return j["rows"][0]["rac"].get<double>();
  };
  const double one = rac(0), two = rac(2);
  EXPECT_GT(one, 1600);
  EXPECT_NEAR(two, one, 1e-6 * one);
}

// The direct solve runs on the ranks' blocks of every box: `auto` picks it for 4 ranks on a
// grid of 2 z levels, cutting y alone for its pencils (--decomposition 2x2: slabs, some
// without a level), for the lock exchange (walls all round: cosine transforms on pencils)
// on 4 ranks, and for the 2D lock exchange (one y row, walls in x: cosine transforms on
// slabs) on 2 ranks, and the pressure line says how it is transposed, not gathered.
TEST(MpiRuns, TheDirectSolveRunsOnTheBlocksOfEveryBox) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_direct");
  const auto run_log = [&](const std::string& tag, const std::string& cas, const std::vector<std::string>& sets,
                                 int ranks, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args{"run", source_path(cas), "--backend", "cpu", "--progress", "0", "--output",
                                  dir.file(tag + ".nc")};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    args.insert(args.end(), more.begin(), more.end());
    BoussProcess p(args, dir.file(tag + ".out"), dir.file(tag + ".err"), mpirun_launcher(ranks));
    const int status = p.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << tag << ": " << p.err();
    return p.out() + p.err();
  };
  // The log's line that holds `what` (the whole log where none does).
  const auto line_of = [](const std::string& log, const std::string& what) {
    const auto at = log.find(what);
    if (at == std::string::npos) return log;
    const auto start = log.rfind('\n', at) + 1;  // npos + 1 = 0
    return log.substr(start, log.find('\n', at) - start);
  };
  // A periodic box: auto cuts y alone (1x4); uniform, its y lines are solved across the ranks
  // by their ends, nothing transposed.
  const std::string log = run_log("levels", "cases/rayleigh_benard.json", {"grid.n=[32,32,2]", "time.steps=2"}, 4);
  // --decomposition 2x2: the slabs, two each way.
  const std::string square = run_log("square", "cases/rayleigh_benard.json", {"grid.n=[32,32,2]", "time.steps=2"}, 4,
                                           {"--decomposition", "2x2"});
  // A box walled all round: likewise (cosine transforms along x and z).
  const std::string lock3d =
      run_log("lock3d", "cases/lock_exchange.json", {"grid.n=[32,16,8]", "time.steps=2"}, 4);
  // A stretched z: the pencils (x on the blocks, y on bands of x modes), one all-to-all each way.
  const std::string stretched = run_log("stretched", "cases/rayleigh_benard.json",
                                        {"grid.n=[32,32,8]", "time.steps=2", R"(grid.z={"stretching": "tanh", "parameter": 1})"}, 4);
  // A walled one (one y row): the slabs.
  const std::string lock2d =
      run_log("lock2d", "cases/lock_exchange_2d.json", {"grid.n=[256,1,32]", "time.steps=2"}, 2);
  const std::string pencils = "x transformed on the blocks, y on bands of x modes over the ranks (one all-to-all each way";
  const std::string split = "x and z transformed on the blocks, each mode's y line solved across the ranks by its blocks' "
                            "ends (one all-gather of the ends a pass)";
  const std::string slabs = "transposed through z slabs and bands of modes over the ranks (two all-to-alls each way";
  for (const auto& [tag, run, expected] :
       {std::make_tuple(std::string("2 levels on 4 ranks"), log, split),
        std::make_tuple(std::string("2 levels on 2x2 ranks"), square, slabs),
        std::make_tuple(std::string("lock_exchange on 4 ranks"), lock3d, split),
        std::make_tuple(std::string("a stretched z on 4 ranks"), stretched, pencils),
        std::make_tuple(std::string("lock_exchange_2d on 2 ranks"), lock2d, slabs)}) {
    const std::string line = line_of(run, "pressure: ");
    EXPECT_NE(line.find("direct solve"), std::string::npos) << tag << ": " << line;
    EXPECT_NE(line.find(expected), std::string::npos) << tag << ": " << line;
    EXPECT_EQ(line.find("gathered"), std::string::npos) << tag << ": " << line;
  }
  EXPECT_NE(line_of(log, "process grid").find("process grid 1x4"), std::string::npos) << log;
  EXPECT_NE(line_of(square, "process grid").find("process grid 2x2"), std::string::npos) << square;
  EXPECT_NE(line_of(lock3d, "process grid").find("process grid 1x4"), std::string::npos) << lock3d;
}

// The commands that run one rank refuse mpirun with one line (two copies would write over
// each other), instead of running once per rank.
TEST(MpiRuns, OneRankCommandsRefuseMpirun) {
  BOUSS_MPI_OR_SKIP();
  ScratchDir dir("mpi_refuse");
  BoussProcess p({"converge", source_path("cases/onset_free_slip.json"), "--resolutions", "8,16"}, dir.file("o.out"),
                 dir.file("o.err"), mpirun_launcher(2));
  const int status = p.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  const std::string err = p.err();
  const auto first = err.find("bouss: error: this command runs on one rank");
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("bouss: error:", first + 1), std::string::npos) << "more than one error line: " << err;
}

}  // namespace
}  // namespace bouss::test
