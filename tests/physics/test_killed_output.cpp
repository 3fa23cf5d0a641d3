// Output files that a kill -9 cannot damage (io/flush_journal.hpp), `bouss recover`
// (io/output_recovery.hpp) and a restart that never copies a damaged record
// (docs/output.md, "Kills"). The kills are made deterministic by the writer's test hook,
// BOUSS_TEST_KILL_IN_RECORD=R:W (SIGKILL before HDF5's W-th write from the start of snapshot
// R until its flush is committed) or R:commit:W (after the W-th write of that commit into the
// file).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <netcdf.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convection_case.hpp"
#include "mpi_run_checks.hpp"
#include "config/case.hpp"
#include "io/netcdf_writer.hpp"
#include "io/output_recovery.hpp"
#include "netcdf_compare.hpp"
#include "process.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace bouss;
using namespace bouss::test;

namespace {

// Convection on 8 x 8 x 4 cells on the CPU, a snapshot and a diagnostics record every step:
// 66 steps write 67 records in about a tenth of a second. Record 64 is the one whose flush
// splits the chunk index of every field (HDF5's B-trees hold 64 chunks a node), the flush in
// which a kill used to lose all 64 records before it.
std::string case_text(int steps, const std::string& output, const std::string& extra = "") {
  return convection_case_json("killed", "[8, 8, 4]", 3,
                              R"("time": {"steps": )" + std::to_string(steps) + R"(},
  "output": {"file": ")" + output + R"(", "interval_steps": 1, "diagnostics_interval_steps": 1)" + extra + "}");
}

std::string write_case(const ScratchDir& dir, int steps, const std::string& extra = "",
                       const std::string& name = "case.json") {
  const std::string path = dir.file(name);
  std::ofstream(path) << case_text(steps, dir.file("run.nc"), extra);
  return path;
}

std::vector<std::string> partials_in(const fs::path& folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 8 && n.compare(n.size() - 8, 8, ".partial") == 0) out.push_back(e.path().string());
  }
  return out;
}

// What a user reading the file sees: every variable on a record dimension read whole (as
// `ds["T"][:]` does), and the records of the fields and series that hold fill values.
struct Contents {
  bool opens = false;
  long records = -1, series_records = -1;
  std::vector<std::string> problems;  // "T does not read: NetCDF: HDF error", "p holds fill values"
};

Contents read_back(const std::string& path) {
  Contents c;
  int nc = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return c;
  c.opens = true;
  int id = -1;
  size_t len = 0;
  if (nc_inq_dimid(nc, "time", &id) == NC_NOERR && nc_inq_dimlen(nc, id, &len) == NC_NOERR) c.records = long(len);
  if (nc_inq_dimid(nc, "diagnostic_time", &id) == NC_NOERR && nc_inq_dimlen(nc, id, &len) == NC_NOERR)
    c.series_records = long(len);
  int nvars = 0;
  nc_inq_nvars(nc, &nvars);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {}, first[NC_MAX_NAME + 1] = {};
    int ndims = 0, dims[NC_MAX_VAR_DIMS];
    nc_inq_var(nc, v, name, nullptr, &ndims, dims, nullptr);
    if (ndims < 1) continue;
    nc_inq_dimname(nc, dims[0], first);
    const std::string dim = first;
    if (dim != "time" && dim != "diagnostic_time" && dim != "profile_time") continue;
    size_t count = 1;
    for (int d = 0; d < ndims; ++d) {
      nc_inq_dimlen(nc, dims[d], &len);
      count *= len;
    }
    std::vector<double> values(count);
    if (count == 0) continue;
    if (const int s = nc_get_var_double(nc, v, values.data()); s != NC_NOERR) {
      c.problems.push_back(std::string(name) + " does not read: " + nc_strerror(s));
      continue;
    }
    for (double x : values)
      if (x == NC_FILL_DOUBLE || float(x) == NC_FILL_FLOAT) {
        c.problems.push_back(std::string(name) + " holds fill values");
        break;
      }
  }
  nc_close(nc);
  return c;
}

// One run killed by the hook, in a folder of its own.
struct KilledRun {
  std::unique_ptr<ScratchDir> dir;
  std::unique_ptr<BoussProcess> process;
};

KilledRun start_killed(const std::string& hook, int steps) {
  KilledRun k;
  k.dir = std::make_unique<ScratchDir>("killed");
  const std::string c = write_case(*k.dir, steps);
  ::setenv("BOUSS_TEST_KILL_IN_RECORD", hook.c_str(), 1);
  k.process = std::make_unique<BoussProcess>(std::vector<std::string>{"run", c, "--progress", "0"},
                                             k.dir->file("out"), k.dir->file("err"));
  ::unsetenv("BOUSS_TEST_KILL_IN_RECORD");
  return k;
}

bool killed_by_sigkill(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }

// A run of `case_file` to its end, writing `out`.
void run_to_end(const ScratchDir& dir, const std::string& case_file) {
  BoussProcess p({"run", case_file, "--progress", "0"}, dir.file("end_out"), dir.file("end_err"));
  ASSERT_EQ(p.wait(), 0) << p.err();
}

}  // namespace

// The guarantee: a kill at any write HDF5 makes while it writes and flushes a record leaves a
// partial file that reads back exactly as the last flush left it: every earlier record
// complete, whole variables readable, nothing of the record being written. Tried at every
// write of the flush that splits the chunk index (record 64), 4 runs at a time. Before the
// flush journal, kills between the object headers' and the new B-tree nodes' writes of this
// flush made records 0..63 of every field unreadable ("NetCDF: HDF error").
TEST(KilledOutput, EveryFlushedRecordReadsBackAfterAKillAtAnyWriteOfAFlush) {
  int killed = 0;
  bool flush_ended = false;
  for (int first = 1; !flush_ended && first < 400; first += 4) {
    std::vector<KilledRun> runs;
    for (int w = first; w < first + 4; ++w) runs.push_back(start_killed("64:" + std::to_string(w), 66));
    for (int i = 0; i < 4; ++i) {
      KilledRun& k = runs[size_t(i)];
      const int status = k.process->wait();
      if (!killed_by_sigkill(status)) {
        // The hook's write lies beyond the flush's last: the run ended normally.
        ASSERT_EQ(status, 0) << k.process->err();
        flush_ended = true;
        continue;
      }
      ++killed;
      const auto partial = partials_in(k.dir->path());
      ASSERT_EQ(partial.size(), 1u);
      const Contents c = read_back(partial.front());
      ASSERT_TRUE(c.opens) << "killed at write " << first + i << " of record 64's flush";
      EXPECT_EQ(c.records, 64) << "killed at write " << first + i << ": the 64 flushed records, none more";
      EXPECT_EQ(c.series_records, 65) << "killed at write " << first + i;
      EXPECT_TRUE(c.problems.empty()) << "killed at write " << first + i << ": "
                                      << ::testing::PrintToString(c.problems);
    }
  }
  EXPECT_TRUE(flush_ended);
  EXPECT_GE(killed, 10) << "the flush of record 64 makes more writes than that";
}

// A kill while a committed flush goes into the file (the only moment the partial file itself
// can be caught half-updated) leaves the journal: `bouss recover` completes the flush from it
// and keeps that record too; the partial file then reads back whole.
TEST(KilledOutput, AKillWhileAFlushGoesIntoTheFileIsCompletedByRecover) {
  for (const char* hook : {"64:commit:1", "64:commit:3"}) {
    KilledRun k = start_killed(hook, 66);
    ASSERT_TRUE(killed_by_sigkill(k.process->wait())) << hook << ": " << k.process->err();
    const auto partial = partials_in(k.dir->path());
    ASSERT_EQ(partial.size(), 1u);
    ASSERT_GT(fs::file_size(partial.front() + ".journal"), 0u) << hook;
    const std::string recovered = k.dir->file("recovered.nc");
    BoussProcess r({"recover", partial.front(), "--output", recovered}, k.dir->file("rout"), k.dir->file("rerr"));
    ASSERT_EQ(r.wait(), 0) << r.err();
    EXPECT_NE(r.out().find("completed the flush the run was killed in"), std::string::npos) << r.out();
    EXPECT_NE(r.out().find("kept 65 of 65 records and 65 of 65 diagnostics records"), std::string::npos) << r.out();
    const Contents c = read_back(recovered);
    EXPECT_EQ(c.records, 65) << hook;
    EXPECT_TRUE(c.problems.empty()) << ::testing::PrintToString(c.problems);
    const Contents p = read_back(partial.front());
    EXPECT_EQ(p.records, 65) << hook << ": the partial file itself, its last flush completed";
    EXPECT_TRUE(p.problems.empty()) << ::testing::PrintToString(p.problems);
    EXPECT_FALSE(fs::exists(partial.front() + ".journal"));
    EXPECT_EQ(bitwise_difference(partial.front(), recovered), "");
  }
}

namespace {

// A partial file written in this process, 6 snapshots and 6 diagnostics records, with two
// damaged records as a killed run of an older bouss left them: record 2 without its p (the
// kill came before p's slab), record 4 with a chunk of T that no longer inflates (HDF5 then
// reports "NetCDF: HDF error" for it, as for a chunk its index points past the file's end).
struct DamagedFile {
  std::string partial;
  std::vector<double> times;
};

DamagedFile write_damaged(const ScratchDir& dir) {
  const Case c = parse_case(case_text(1, dir.file("out/rb.nc"), R"(, "compression": {"deflate": 1})"), "test");
  fs::create_directories(dir.file("out"));
  DamagedFile d;
  {
    auto w = std::make_unique<NetcdfWriter>(dir.file("out/rb.nc"), c);
    d.partial = w->partial_path();
    for (int r = 0; r < 6; ++r) {
      const double t = 0.25 * r;
      d.times.push_back(t);
      w->write_series(t, {{"kinetic_energy", 1.0 + r}, {"nusselt_bottom", 2.0 + r}});
      w->begin_record(t, {{"step", double(r)}});
      for (const char* f : {"T", "u", "v", "w", "p"}) {
        if (r == 2 && std::string(f) == "p") continue;
        const int nx = 8 + (f[0] == 'u'), ny = 8 + (f[0] == 'v'), nz = 4 + (f[0] == 'w');
        std::vector<double> v(size_t(nx * ny * nz));
        for (size_t i = 0; i < v.size(); ++i) v[i] = 100.0 * r + double(i) + (f[0] - 'a');
        w->write_slab(f, 0, nz, v.data());
      }
      w->end_record();
    }
  }  // destroyed unclosed, as a killed run leaves it
  // T's chunk of record 4, overwritten in place.
  haddr_t address = 0;
  hsize_t size = 0;
  {
    const hid_t file = H5Fopen(d.partial.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t t = H5Dopen2(file, "T", H5P_DEFAULT);
    const hsize_t at[4] = {4, 0, 0, 0};
    unsigned mask = 0;
    EXPECT_GE(H5Dget_chunk_info_by_coord(t, at, &mask, &address, &size), 0);
    H5Dclose(t);
    H5Fclose(file);
  }
  const std::vector<char> junk(size_t(size), '\x5a');
  const int fd = ::open(d.partial.c_str(), O_WRONLY);
  EXPECT_EQ(::pwrite(fd, junk.data(), junk.size(), off_t(address)), ssize_t(size));
  ::close(fd);
  return d;
}

std::map<std::string, std::vector<double>> variables(const std::string& path) { return read_variables(path); }

}  // namespace

TEST(Recover, CopiesEveryCompleteRecordAndNamesEachOneItLeavesOut) {
  ScratchDir dir("recover");
  const DamagedFile d = write_damaged(dir);
  ASSERT_FALSE(read_back(d.partial).problems.empty()) << "the file is damaged as meant";
  BoussProcess r({"recover", d.partial}, dir.file("rout"), dir.file("rerr"));
  ASSERT_EQ(r.wait(), 0) << r.err();
  EXPECT_NE(r.out().find("kept 4 of 6 records and 6 of 6 diagnostics records; record 2: p holds fill values (the "
                         "run was killed while writing it); record 4: T does not read (NetCDF: HDF error)"),
            std::string::npos)
      << r.out();
  const std::string recovered = dir.file("out/rb.recovered.nc");  // the default name
  EXPECT_NE(r.out().find("wrote " + recovered), std::string::npos) << r.out();
  const Contents c = read_back(recovered);
  EXPECT_EQ(c.records, 4);
  EXPECT_EQ(c.series_records, 6);
  EXPECT_TRUE(c.problems.empty()) << ::testing::PrintToString(c.problems);
  // The kept records, bit for bit, in order: 0, 1, 3 and 5.
  const auto got = variables(recovered);
  EXPECT_EQ(got.at("time"), (std::vector<double>{d.times[0], d.times[1], d.times[3], d.times[5]}));
  EXPECT_EQ(got.at("step"), (std::vector<double>{0, 1, 3, 5}));
  const size_t per = 9 * 8 * 4;  // u's values in one record
  for (size_t k = 0; k < 4; ++k) {
    const int r = k < 2 ? int(k) : int(2 * k - 1);
    for (size_t i = 0; i < per; ++i)
      ASSERT_EQ(got.at("u")[k * per + i], 100.0 * r + double(i) + ('u' - 'a')) << "record " << k << " value " << i;
  }
  EXPECT_EQ(got.at("kinetic_energy"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // The same metadata: the case and the history, with a line for the recovery.
  int a = -1, b = -1;
  ASSERT_EQ(nc_open(d.partial.c_str(), NC_NOWRITE, &a), NC_NOERR);
  ASSERT_EQ(nc_open(recovered.c_str(), NC_NOWRITE, &b), NC_NOERR);
  for (const char* att : {"case_json", "history", "title", "bouss_build"}) {
    size_t la = 0, lb = 0;
    ASSERT_EQ(nc_inq_attlen(a, NC_GLOBAL, att, &la), NC_NOERR) << att;
    ASSERT_EQ(nc_inq_attlen(b, NC_GLOBAL, att, &lb), NC_NOERR) << att;
    std::string sa(la, '\0'), sb(lb, '\0');
    nc_get_att_text(a, NC_GLOBAL, att, &sa[0]);
    nc_get_att_text(b, NC_GLOBAL, att, &sb[0]);
    if (std::string(att) == "history") {
      EXPECT_EQ(sb.rfind(sa, 0), 0u) << "the history goes on: " << sb;
      EXPECT_NE(sb.find("recovered from " + d.partial + " by bouss recover: kept 4 of 6 records"), std::string::npos)
          << sb;
    } else {
      EXPECT_EQ(sa, sb) << att;
    }
  }
  nc_close(a);
  nc_close(b);
  EXPECT_TRUE(fs::exists(d.partial)) << "the damaged file stays";
}

TEST(Recover, KeepsEveryRecordOfAFinishedFileAndNeverReplacesAFile) {
  ScratchDir dir("recover_clean");
  const std::string c = write_case(dir, 5);
  run_to_end(dir, c);
  const std::string out = dir.file("run.nc"), copy = dir.file("copy.nc");
  BoussProcess r({"recover", out, "--output", copy}, dir.file("rout"), dir.file("rerr"));
  ASSERT_EQ(r.wait(), 0) << r.err();
  EXPECT_NE(r.out().find("kept 6 of 6 records and 6 of 6 diagnostics records\n"), std::string::npos) << r.out();
  EXPECT_EQ(bitwise_difference(out, copy), "");
  EXPECT_TRUE(partials_in(dir.path()).empty()) << "the new file was renamed into place";

  // An existing file is never replaced, whatever it is; the refusal names it.
  const auto before = fs::last_write_time(copy);
  BoussProcess again({"recover", out, "--output", copy}, dir.file("aout"), dir.file("aerr"));
  const int status = again.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_EQ(again.err(), "bouss: error: " + copy + ": exists; bouss recover never replaces a file: name another with "
                                                   "--output\n");
  EXPECT_EQ(fs::last_write_time(copy), before);
  BoussProcess missing({"recover", dir.file("nothing.nc.1.partial")}, dir.file("mout"), dir.file("merr"));
  const int s2 = missing.wait();
  EXPECT_TRUE(WIFEXITED(s2) && WEXITSTATUS(s2) == 2) << missing.err();
  EXPECT_EQ(missing.err(), "bouss: error: " + dir.file("nothing.nc.1.partial") + ": no such file\n");
}

TEST(Recover, DefaultNameIsTheFinalNameWithRecovered) {
  EXPECT_EQ(recovered_path_for("out/rb.nc.1234.partial"), "out/rb.recovered.nc");
  EXPECT_EQ(recovered_path_for("out/rb.nc.1234.2.partial"), "out/rb.recovered.nc");
  EXPECT_EQ(recovered_path_for("rb.nc"), "rb.recovered.nc");
  EXPECT_EQ(recovered_path_for("data/run"), "data/run.recovered.nc");
}

// A restart that continues a file copies the records its checkpoint counts from the killed
// run's partial file; one of them damaged, it refuses (exit 2) in one line that names the
// record and says what to do, and leaves every file as it was, making none.
TEST(KilledOutput, ARestartRefusesToCopyADamagedRecordItsCheckpointCounts) {
  ScratchDir dir("restart_damaged");
  // A checkpoint every 10 steps (the "extra" closes the output object and opens another).
  const std::string c = write_case(dir, 40, R"(}, "checkpoint": {"interval_steps": 10)");
  ::setenv("BOUSS_TEST_KILL_IN_RECORD", "25:1", 1);
  BoussProcess p({"run", c, "--progress", "0"}, dir.file("out"), dir.file("err"));
  ::unsetenv("BOUSS_TEST_KILL_IN_RECORD");
  ASSERT_TRUE(killed_by_sigkill(p.wait())) << p.err();
  const auto partial = partials_in(dir.path());
  ASSERT_EQ(partial.size(), 1u);
  const std::string checkpoint = dir.file("run.checkpoint.20.nc");
  ASSERT_TRUE(fs::exists(checkpoint));
  // Record 3's p overwritten with fill values, as a kill in an older bouss could leave it.
  {
    int nc = -1, v = -1;
    ASSERT_EQ(nc_open(partial.front().c_str(), NC_WRITE, &nc), NC_NOERR);
    ASSERT_EQ(nc_inq_varid(nc, "p", &v), NC_NOERR);
    const std::vector<double> fill(8 * 8 * 4, NC_FILL_DOUBLE);
    const size_t start[4] = {3, 0, 0, 0}, count[4] = {1, 4, 8, 8};
    ASSERT_EQ(nc_put_vara_double(nc, v, start, count, fill.data()), NC_NOERR);
    nc_close(nc);
  }
  const std::string before = dir.file("before.nc");
  fs::copy_file(partial.front(), before);
  BoussProcess r({"run", c, "--restart", checkpoint, "--progress", "0"}, dir.file("rout"), dir.file("rerr"));
  const int status = r.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status << r.err();
  const std::string err = r.err();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("its record 3: p holds fill values"), std::string::npos) << err;
  EXPECT_NE(err.find("bouss recover " + partial.front()), std::string::npos) << err;
  EXPECT_NE(err.find("--output NEW.nc"), std::string::npos) << err;
  EXPECT_EQ(partials_in(dir.path()), partial) << "the refused restart leaves no partial file of its own";
  EXPECT_EQ(bitwise_difference(before, partial.front()), "") << "the killed run's partial file is untouched";
  EXPECT_FALSE(fs::exists(dir.file("run.nc")));
}

namespace {

// The run of case_text on two ranks (each writes its block of every record into the one
// file), started with the kill hook where one is given.
KilledRun start_on_ranks(const std::string& hook, int steps) {
  KilledRun k;
  k.dir = std::make_unique<ScratchDir>("killed_ranks");
  const std::string c = write_case(*k.dir, steps);
  if (!hook.empty()) ::setenv("BOUSS_TEST_KILL_IN_RECORD", hook.c_str(), 1);
  k.process = std::make_unique<BoussProcess>(std::vector<std::string>{"run", c, "--progress", "0"},
                                             k.dir->file("out"), k.dir->file("err"), mpirun_launcher(2));
  ::unsetenv("BOUSS_TEST_KILL_IN_RECORD");
  return k;
}

}  // namespace

// The same guarantee when the ranks write the file together (parallel NetCDF): a kill of
// rank 0, which commits every flush, at writes of record 64 (its flush makes the 70th to
// 75th: with the in-place writes let through, kills at writes 70 to 74 left the file
// unreadable, "NetCDF: HDF error", and kills from the 16th showed the record unfinished)
// leaves the 64 records flushed before, whole; one inside the commit, a journal that `bouss
// recover` completes. mpirun ends the other rank.
TEST(KilledOutput, UnderRanksAKillAtAWriteOfAFlushKeepsEveryFlushedRecord) {
  BOUSS_MPI_OR_SKIP();
  std::vector<std::string> hooks = {"64:commit:1", "64:commit:3"};
  for (int w = 2; w <= 66; w += 16) hooks.push_back("64:" + std::to_string(w));
  for (int w = 69; w <= 75; ++w) hooks.push_back("64:" + std::to_string(w));
  int killed = 0;
  for (std::size_t first = 0; first < hooks.size(); first += 2) {
    std::vector<KilledRun> runs;  // two at a time
    for (std::size_t i = first; i < std::min(hooks.size(), first + 2); ++i) runs.push_back(start_on_ranks(hooks[i], 66));
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::string& hook = hooks[first + r];
      KilledRun& k = runs[r];
      if (k.process->wait() == 0) continue;  // the hook's write lies beyond the flush's last
      ++killed;
      const auto partial = partials_in(k.dir->path());
      ASSERT_EQ(partial.size(), 1u) << hook << ": " << k.process->err();
      if (hook.find("commit") != std::string::npos) {
        ASSERT_TRUE(fs::exists(partial.front() + ".journal")) << hook;
        const std::string recovered = k.dir->file("recovered.nc");
        BoussProcess rec({"recover", partial.front(), "--output", recovered}, k.dir->file("rout"), k.dir->file("rerr"));
        ASSERT_EQ(rec.wait(), 0) << rec.err();
        const Contents c = read_back(recovered);
        EXPECT_EQ(c.records, 65) << hook << ": the flush the kill interrupted, completed";
        EXPECT_TRUE(c.problems.empty()) << hook << ": " << ::testing::PrintToString(c.problems);
        continue;
      }
      const Contents c = read_back(partial.front());
      ASSERT_TRUE(c.opens) << hook;
      EXPECT_EQ(c.records, 64) << hook << ": the 64 flushed records, none more";
      EXPECT_TRUE(c.problems.empty()) << hook << ": " << ::testing::PrintToString(c.problems);
    }
  }
  EXPECT_GE(killed, 10) << "rank 0 makes more writes than that in record 64's flush";
}

// kill -9 of the other rank at any moment of a run that writes a record every step: mpirun
// ends rank 0 with it; `bouss recover` keeps every record flushed, and every one reads whole.
TEST(KilledOutput, UnderRanksKillingTheOtherRankKeepsEveryFlushedRecord) {
  BOUSS_MPI_OR_SKIP();
  KilledRun k = start_on_ranks("", 100000);
  const auto records_flushed = [&] {
    const auto partial = partials_in(k.dir->path());
    return partial.size() == 1 && fs::file_size(partial.front()) > (std::uintmax_t(1) << 20);
  };
  ASSERT_TRUE(wait_until([&] { return records_flushed() || !k.process->running(); }, 120)) << "no records";
  ASSERT_TRUE(k.process->running()) << k.process->err();
  const pid_t victim = rank_pid(1, k.dir->path().string());
  ASSERT_GT(victim, 0);
  ::kill(victim, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !k.process->running(); }, 60)) << "the job outlived its killed rank";
  EXPECT_NE(k.process->wait(), 0);
  const auto partial = partials_in(k.dir->path());
  ASSERT_EQ(partial.size(), 1u);
  const std::string recovered = k.dir->file("recovered.nc");
  BoussProcess r({"recover", partial.front(), "--output", recovered}, k.dir->file("rout"), k.dir->file("rerr"));
  ASSERT_EQ(r.wait(), 0) << r.err();
  const Contents c = read_back(recovered);
  EXPECT_GT(c.records, 10);
  EXPECT_TRUE(c.problems.empty()) << ::testing::PrintToString(c.problems);
  EXPECT_NE(r.out().find("kept " + std::to_string(c.records) + " of " + std::to_string(c.records) + " records"),
            std::string::npos)
      << "a flushed record left out: " << r.out();
}
