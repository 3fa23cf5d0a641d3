// Checkpoints: every field comes back bit for bit, a failed write leaves nothing behind
// and an older checkpoint untouched, the disk-room check refuses up front, and a file
// that is not a checkpoint of this format is refused with one line naming it.
#include <gtest/gtest.h>
#include <netcdf.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/build_info.hpp"
#include "io/checkpoint.hpp"
#include "io/file_util.hpp"
#include "io/netcdf_writer.hpp"
#include "parallel/communicator.hpp"
#include "checkpoint_format2.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace bouss;

namespace {

using TempDir = bouss::test::ScratchDir;

std::uint64_t bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The values IEEE 754 makes hard to keep: a NaN without payload, -0.0, denormals, the ends of the range.
std::vector<double> awkward_values() {
  using L = std::numeric_limits<double>;
  return {L::quiet_NaN(), -0.0, 0.0, L::denorm_min(), -L::denorm_min(), 1e-310, L::min(), 1e308, -1e308,
          L::max(), L::lowest(), L::infinity(), -L::infinity(), 1.0 / 3.0, 0.1 + 0.2};
}

CheckpointArray make_array(const std::string& name, int stagger, std::array<int, 3> n, std::uint64_t seed) {
  CheckpointArray a;
  a.name = name;
  a.stagger = stagger;
  std::size_t count = 1;
  for (int ax = 0; ax < 3; ++ax) count *= std::size_t(n[ax]) + (stagger == ax ? 1 : 0);
  a.values.resize(count);
  std::mt19937_64 rng(seed);
  for (auto& v : a.values) {
    // Any finite bit pattern: every exponent and mantissa bit exercised.
    do {
      const std::uint64_t u = rng();
      std::memcpy(&v, &u, sizeof v);
    } while (!std::isfinite(v));
  }
  const auto awkward = awkward_values();
  for (std::size_t i = 0; i < awkward.size() && i < count; ++i) a.values[(i * 7 + seed) % count] = awkward[i];
  return a;
}

// A checkpoint with every field set: a non-cubic grid, all four grid locations.
Checkpoint sample_checkpoint(std::array<int, 3> n = {5, 3, 4}) {
  Checkpoint c;
  c.provenance = build_provenance();
  c.case_json = "{\n  \"name\": \"rb\",\n  \"grid\": {\"n\": [5, 3, 4]},\n  \"note\": \"\xc3\xa9 \\\"quoted\\\"\"\n}\n";
  c.case_source = "cases/rayleigh_benard.json";
  c.n = n;
  c.time = 12.375 + 1e-13;
  c.last_dt = 1.0 / 3.0;
  c.step = 5'000'000'123;  // beyond 32 bits
  const char* names[] = {"u", "v", "w", "T", "p", "G_u", "G_v", "G_w", "G_T"};
  const int staggers[] = {0, 1, 2, -1, -1, 0, 1, 2, -1};
  for (int i = 0; i < 9; ++i) c.arrays.push_back(make_array(names[i], staggers[i], n, 100 + i));
  const auto awkward = awkward_values();
  for (std::size_t i = 0; i < awkward.size(); ++i) c.state["awkward." + std::to_string(i)] = awkward[i];
  c.state["next_output_time"] = 12.5;
  c.state["pressure_failures"] = 2;
  c.text["output_path"] = "out/rb.nc";
  c.text["output_partial"] = "out/rb.nc.4242.partial";
  c.text["empty"] = "";
  c.text["lines"] = "two\nlines, \xc3\xbc and a \"quote\"";
  c.output_records = 7;
  c.series_records = 1234;
  return c;
}

void expect_identical(const Checkpoint& want, const Checkpoint& got) {
  EXPECT_EQ(got.version, Checkpoint::format_version);
  EXPECT_EQ(got.provenance, want.provenance);
  EXPECT_EQ(got.case_json, want.case_json);
  EXPECT_EQ(got.case_source, want.case_source);
  EXPECT_EQ(got.n, want.n);
  EXPECT_EQ(bits(got.time), bits(want.time));
  EXPECT_EQ(bits(got.last_dt), bits(want.last_dt));
  EXPECT_EQ(got.step, want.step);
  EXPECT_EQ(got.output_records, want.output_records);
  EXPECT_EQ(got.series_records, want.series_records);
  EXPECT_EQ(got.text, want.text);
  ASSERT_EQ(got.state.size(), want.state.size());
  for (const auto& kv : want.state) {
    SCOPED_TRACE("state " + kv.first);
    ASSERT_EQ(got.state.count(kv.first), 1u);
    EXPECT_EQ(bits(got.state.at(kv.first)), bits(kv.second));
  }
  ASSERT_EQ(got.arrays.size(), want.arrays.size());
  for (std::size_t i = 0; i < want.arrays.size(); ++i) {
    SCOPED_TRACE("array " + want.arrays[i].name);
    EXPECT_EQ(got.arrays[i].name, want.arrays[i].name);
    EXPECT_EQ(got.arrays[i].stagger, want.arrays[i].stagger);
    EXPECT_EQ(got.arrays[i].region.lo, want.arrays[i].region.lo);
    EXPECT_EQ(got.arrays[i].region.hi, want.arrays[i].region.hi);
    ASSERT_EQ(got.arrays[i].values.size(), want.arrays[i].values.size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < want.arrays[i].values.size(); ++k)
      differ += bits(got.arrays[i].values[k]) != bits(want.arrays[i].values[k]);
    EXPECT_EQ(differ, 0u);
  }
}

// What read_checkpoint throws for `path` ("" when it reads).
std::string read_error(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string write_error(const std::string& path, const Checkpoint& c) {
  try {
    write_checkpoint(path, c);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// One line that names the file: "checkpoint PATH: ...".
void expect_one_line_naming(const std::string& message, const std::string& path) {
  EXPECT_EQ(message.rfind("checkpoint " + path + ": ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

bool has_partial(const fs::path& dir) {
  for (const auto& e : entries(dir))
    if (e.find(".partial") != std::string::npos) return true;
  return false;
}

// Opens a checkpoint with the netCDF C API for an edit that read_checkpoint must notice.
template <class Edit>
void edit_file(const std::string& path, Edit edit) {
  int ncid = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_WRITE, &ncid), NC_NOERR);
  edit(ncid);
  ASSERT_EQ(nc_close(ncid), NC_NOERR);
}

}  // namespace

TEST(Checkpoint, PathIsStemCheckpointStepNc) {
  EXPECT_EQ(checkpoint_path("out/rb", 1200), "out/rb.checkpoint.1200.nc");
  EXPECT_EQ(checkpoint_path("rb", 0), "rb.checkpoint.0.nc");
  EXPECT_EQ(checkpoint_path("a.b/c", 5'000'000'123), "a.b/c.checkpoint.5000000123.nc");
}

TEST(Checkpoint, RoundTripIsBitForBitOnANonCubicGridWithAllStaggers) {
  TempDir dir;
  const Checkpoint c = sample_checkpoint({5, 3, 4});
  const std::string path = dir.file("rb.checkpoint.1200.nc");
  write_checkpoint(path, c);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"rb.checkpoint.1200.nc"});
  expect_identical(c, read_checkpoint(path));

  // The file is NetCDF-4 and each array sits on its own grid location.
  int ncid = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
  int format = 0;
  EXPECT_EQ(nc_inq_format(ncid, &format), NC_NOERR);
  EXPECT_EQ(format, NC_FORMAT_NETCDF4);
  int varid = -1, dimids[3];
  ASSERT_EQ(nc_inq_varid(ncid, "G_v", &varid), NC_NOERR);
  ASSERT_EQ(nc_inq_vardimid(ncid, varid, dimids), NC_NOERR);
  const char* want[3] = {"z", "yf", "x"};
  for (int d = 0; d < 3; ++d) {
    char name[NC_MAX_NAME + 1];
    ASSERT_EQ(nc_inq_dimname(ncid, dimids[d], name), NC_NOERR);
    EXPECT_STREQ(name, want[d]);
  }
  nc_close(ncid);
}

TEST(Checkpoint, RoundTripOfMultiChunkArraysLongTextAndManyKeys) {
  TempDir dir;
  // 4 MiB chunks: T (128 x 64 x 80) is two slabs of 64 and 16 planes, u two of 63 and 17.
  const std::array<int, 3> n{128, 64, 80};
  Checkpoint c = sample_checkpoint(n);
  c.arrays = {make_array("u", 0, n, 1), make_array("T", -1, n, 2)};
  c.case_json = std::string(100'000, 'x') + "\xc3\xa9";  // beyond HDF5's 64 KiB compact attributes
  for (int i = 0; i < 300; ++i) c.state["series.value-" + std::to_string(i)] = i * 0.1;
  const std::string path = dir.file("big.nc");
  write_checkpoint(path, c);
  expect_identical(c, read_checkpoint(path));
  EXPECT_LE(fs::file_size(path), checkpoint_bytes(c));
}

// A flat array (a time average's sums: values of no grid shape) on its own dimension, small
// and over several chunks, comes back bit for bit beside the grid arrays, and within the size
// checkpoint_bytes promised.
TEST(Checkpoint, FlatArraysRoundTripBitForBit) {
  TempDir dir;
  Checkpoint c = sample_checkpoint({5, 3, 4});
  const auto awkward = awkward_values();
  c.arrays.push_back({"average_sums", CheckpointArray::flat_array, awkward});
  std::vector<double> big(1'300'000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = std::sin(double(i)) * 1e-3 + double(i);
  c.arrays.push_back({"average_sums.2", CheckpointArray::flat_array, big});
  const std::string path = dir.file("flat.nc");
  write_checkpoint(path, c);
  expect_identical(c, read_checkpoint(path));
  EXPECT_LE(fs::file_size(path), checkpoint_bytes(c));
  Checkpoint empty = sample_checkpoint({5, 3, 4});
  empty.arrays.push_back({"average_sums", CheckpointArray::flat_array, {}});
  EXPECT_THROW(write_checkpoint(dir.file("empty.nc"), empty), std::runtime_error);
}

// Region arrays (a time average's sums over a box of the grid) on their own dimensions come
// back bit for bit with their regions, whole or as a reader's share; the shares' checksum
// parts add up to the stored ones.
TEST(Checkpoint, RegionArraysRoundTripWholeAndByShare) {
  TempDir dir;
  const std::array<int, 3> n{9, 7, 5};
  Checkpoint c = sample_checkpoint(n);
  const Box centres{{2, 1, 0}, {8, 7, 4}}, faces{{0, 3, 1}, {10, 5, 5}};  // faces along x: 10 points
  CheckpointArray a = make_array("average_sum0", -1, {6, 6, 4}, 7), b = make_array("average_sum1", -1, {10, 2, 4}, 8);
  a.region = centres;
  b.stagger = 0;
  b.region = faces;
  c.arrays.push_back(a);
  c.arrays.push_back(b);
  const std::string path = dir.file("region.nc");
  write_checkpoint(path, c);
  expect_identical(c, read_checkpoint(path));
  EXPECT_LE(fs::file_size(path), checkpoint_bytes(c));

  // Two readers, cut along x at 4 (each the faces of its cells, the last one the end face).
  std::vector<CheckpointChecksum> sums;
  for (int r = 0; r < 2; ++r) {
    CheckpointBlock block;
    block.n = n;
    std::array<Box, 4> shares;
    for (int s = 0; s < 4; ++s) {
      const Box whole{{0, 0, 0}, {n[0] + (s == 1), n[1] + (s == 2), n[2] + (s == 3)}};
      block.boxes[std::size_t(s)] = shares[std::size_t(s)] = whole;
      shares[std::size_t(s)].lo[0] = r == 0 ? 0 : 4;
      shares[std::size_t(s)].hi[0] = r == 0 ? 4 : whole.hi[0];
    }
    block.shares = shares;
    const Checkpoint got = read_checkpoint(path, block);
    for (const CheckpointArray* want : {&a, &b}) {
      const CheckpointArray* read = nullptr;
      for (const auto& arr : got.arrays)
        if (arr.name == want->name) read = &arr;
      ASSERT_NE(read, nullptr);
      const Box& region = want->region;
      const Box share = intersect(region, shares[std::size_t(want->stagger + 1)]);
      std::vector<double> expected;
      for (int k = share.lo[2]; k < share.hi[2]; ++k)
        for (int j = share.lo[1]; j < share.hi[1]; ++j)
          for (int i = share.lo[0]; i < share.hi[0]; ++i)
            expected.push_back(want->values[std::size_t(((k - region.lo[2]) * region.extent(1) + (j - region.lo[1])) *
                                                            region.extent(0) + (i - region.lo[0]))]);
      ASSERT_EQ(read->values.size(), expected.size()) << want->name << " of reader " << r;
      for (std::size_t v = 0; v < expected.size(); ++v) EXPECT_EQ(bits(read->values[v]), bits(expected[v]));
    }
    if (r == 0) sums = got.checksums;
    else
      for (std::size_t i = 0; i < sums.size(); ++i) sums[i].part += got.checksums.at(i).part;
  }
  ASSERT_EQ(sums.size(), 11u);
  for (const auto& sum : sums) EXPECT_EQ(sum.part, sum.stored) << sum.name;

  Checkpoint outside = c;
  outside.arrays.back().region.hi[0] = 11;
  EXPECT_NE(write_error(dir.file("outside.nc"), outside).find("array 'average_sum1': its region lies outside the grid"),
            std::string::npos);
}

// Checkpoints of format 2 (builds before format 3) still read: the arrays, flat ones
// included, bit for bit; HDF5's own checksums still find a flipped bit.
TEST(Checkpoint, AFormat2CheckpointStillReads) {
  TempDir dir;
  Checkpoint c = sample_checkpoint({6, 5, 4});
  c.arrays.push_back({"average_sums", CheckpointArray::flat_array, awkward_values(), Box{}});
  const std::string path = dir.file("v2.nc");
  test::write_format_2(path, c);
  Checkpoint got = read_checkpoint(path);
  EXPECT_EQ(got.version, 2);
  got.version = Checkpoint::format_version;
  expect_identical(c, got);

  const double marker = 1.2345678901234567e-123;
  for (auto& v : c.arrays[3].values) v = marker;  // T
  test::write_format_2(path, c);
  std::string bytes = file_bytes(path);
  char pattern[sizeof marker];
  std::memcpy(pattern, &marker, sizeof marker);
  const auto at = bytes.find(std::string(pattern, sizeof pattern));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 8 * 20 + 3] ^= 0x10;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
  EXPECT_NE(read_error(path).find("damaged: cannot read array 'T'"), std::string::npos) << read_error(path);
}

TEST(Checkpoint, CheckpointBytesBoundsTheFileSize) {
  TempDir dir;
  Checkpoint empty;
  empty.n = {1, 1, 1};
  Checkpoint one = sample_checkpoint({1, 1, 1});
  Checkpoint sample = sample_checkpoint({17, 9, 6});
  int i = 0;
  for (const Checkpoint* c : {&empty, &one, &sample}) {
    const std::string path = dir.file("c" + std::to_string(i++) + ".nc");
    write_checkpoint(path, *c);
    std::uintmax_t values = 0;
    for (const auto& a : c->arrays) values += a.values.size() * sizeof(double);
    EXPECT_LE(fs::file_size(path), checkpoint_bytes(*c)) << path;
    EXPECT_GE(checkpoint_bytes(*c), values);
  }
}

// HDF5 stores an edge chunk at full size: 129 planes in chunks of 32 would store 160.
TEST(Checkpoint, ChunksOfAnAwkwardAxisAddLessThanOnePercent) {
  TempDir dir;
  const std::array<int, 3> n{256, 64, 128};  // w: 129 planes of 128 KiB
  Checkpoint c;
  c.n = n;
  c.arrays = {make_array("w", 2, n, 3)};
  const std::string path = dir.file("w.nc");
  write_checkpoint(path, c);
  const double values = double(c.arrays[0].values.size() * sizeof(double));
  EXPECT_LT(double(fs::file_size(path)), 1.01 * values + (64 << 10));
  expect_identical(c, read_checkpoint(path));
}

TEST(Checkpoint, ReplacesAnOlderCheckpointOfTheSameName) {
  TempDir dir;
  const std::string path = dir.file("rb.checkpoint.10.nc");
  write_checkpoint(path, sample_checkpoint({3, 3, 3}));
  const Checkpoint newer = sample_checkpoint({4, 2, 3});
  write_checkpoint(path, newer);
  expect_identical(newer, read_checkpoint(path));
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"rb.checkpoint.10.nc"});
}

TEST(Checkpoint, WriteToAMissingFolderFailsAndLeavesNothing) {
  TempDir dir;
  const std::string path = dir.file("missing/rb.checkpoint.1.nc");
  const std::string message = write_error(path, sample_checkpoint());
  expect_one_line_naming(message, path);
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(Checkpoint, RefusedContentsLeaveTheOlderCheckpointUntouched) {
  TempDir dir;
  const std::string path = dir.file("rb.checkpoint.1.nc");
  write_checkpoint(path, sample_checkpoint());
  const std::string before = file_bytes(path);

  Checkpoint short_array = sample_checkpoint();
  short_array.arrays[0].values.resize(3);
  std::string message = write_error(path, short_array);
  expect_one_line_naming(message, path);
  EXPECT_NE(message.find("array 'u' has 3 values, expected 72 (6 x 3 x 4)"), std::string::npos) << message;

  Checkpoint twice = sample_checkpoint();
  twice.arrays.push_back(twice.arrays[0]);
  EXPECT_NE(write_error(path, twice).find("array 'u' given twice"), std::string::npos);

  Checkpoint dimension_name = sample_checkpoint();
  dimension_name.arrays[0].name = "xf";
  EXPECT_NE(write_error(path, dimension_name).find("array name 'xf' is not allowed"), std::string::npos);

  Checkpoint bad_key = sample_checkpoint();
  bad_key.state["a/b"] = 1;
  EXPECT_NE(write_error(path, bad_key).find("state key 'a/b' is not allowed"), std::string::npos);

  Checkpoint bad_stagger = sample_checkpoint();
  bad_stagger.arrays[3].stagger = 7;
  EXPECT_NE(write_error(path, bad_stagger).find("array 'T' has stagger 7"), std::string::npos);

  EXPECT_EQ(file_bytes(path), before);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"rb.checkpoint.1.nc"});
}

// The disk-room check on a real small file system. Mounting needs root (CAP_SYS_ADMIN);
// elsewhere the test is skipped and the forked RLIMIT_FSIZE test below still runs.
TEST(Checkpoint, DiskRoomCheckRefusesUpFrontOnASmallTmpfs) {
  TempDir dir;
  const fs::path mnt = dir.path() / "tmpfs";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): needs root";
  struct Unmount {
    std::string at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt.string()};

  const std::string path = (mnt / "rb.checkpoint.5.nc").string();
  const Checkpoint small = sample_checkpoint({2, 2, 2});
  write_checkpoint(path, small);
  const std::string before = file_bytes(path);

  const Checkpoint big = sample_checkpoint({24, 16, 12});  // 9 arrays of ~37 KiB
  ASSERT_GT(checkpoint_bytes(big), free_bytes(path));
  const std::string message = write_error(path, big);
  expect_one_line_naming(message, path);
  const std::string want = "checkpoint " + path + ": needs " + format_bytes(double(checkpoint_bytes(big))) +
                           ", the disk has " + format_bytes(double(free_bytes(path))) + " free";
  EXPECT_EQ(message, want);

  EXPECT_EQ(entries(mnt), std::vector<std::string>{"rb.checkpoint.5.nc"});
  EXPECT_EQ(file_bytes(path), before);
  expect_identical(small, read_checkpoint(path));
}

// Runs `body` in a forked child that leaves through std::exit (so the libraries' exit
// handlers run, as in a program that reports an error and stops). `body` returns the exit
// code and may set a message for the parent.
struct ChildResult {
  int status = 0;
  std::string message;
};

template <class Body>
ChildResult run_in_child(Body body) {
  ChildResult r;
  int fds[2];
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);  // else the child's std::exit flushes what it inherited a second time
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string message;
    int code = 99;
    try {
      code = body(message);
    } catch (...) {
    }
    if (::write(fds[1], message.data(), message.size()) < 0) code = 98;
    ::close(fds[1]);
    std::exit(code);
  }
  ::close(fds[1]);
  char buf[512];
  for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;) r.message.append(buf, std::size_t(got));
  ::close(fds[0]);
  EXPECT_EQ(::waitpid(pid, &r.status, 0), pid);
  return r;
}

constexpr int kCleanError = 3, kNoError = 4, kOtherError = 5, kSetupFailed = 6;

// write_checkpoint in the child: kCleanError with the message, or kNoError, or kOtherError.
int write_in_child_process(const std::string& path, const Checkpoint& c, std::string& message) {
  try {
    write_checkpoint(path, c);
  } catch (const std::runtime_error& e) {
    message = e.what();
    return kCleanError;
  } catch (...) {
    return kOtherError;
  }
  return kNoError;
}

void set_file_size_limit(rlim_t limit) {
  struct rlimit lim{};
  if (::getrlimit(RLIMIT_FSIZE, &lim) != 0) std::_Exit(kSetupFailed);
  lim.rlim_cur = limit;
  if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) std::_Exit(kSetupFailed);
}

// A write that fails half-way, without root: a forked child whose files may not grow
// beyond a limit (RLIMIT_FSIZE; with SIGXFSZ ignored, write() fails with EFBIG). The limits
// make it fail while the metadata, the arrays, or the final flush are written. Afterwards
// the child must still be able to write and read a checkpoint, and to exit normally: a
// process whose HDF5 state a failed write broke crashes there.
TEST(Checkpoint, WriteFailingHalfWayGivesACleanErrorAndLeavesNoPartial) {
  TempDir dir;
  const std::string path = dir.file("rb.checkpoint.7.nc");
  const Checkpoint old = sample_checkpoint({2, 2, 2});
  write_checkpoint(path, old);
  const std::string before = file_bytes(path);
  const Checkpoint big = sample_checkpoint({24, 16, 12});  // ~340 KiB
  ASSERT_LT(checkpoint_bytes(big), free_bytes(path));     // the disk-room check passes

  for (const rlim_t limit : {rlim_t(1) << 10, rlim_t(8) << 10, rlim_t(64) << 10, rlim_t(256) << 10}) {
    SCOPED_TRACE("file size limit " + std::to_string(limit));
    const ChildResult r = run_in_child([&](std::string& message) {
      if (::signal(SIGXFSZ, SIG_IGN) == SIG_ERR) return kSetupFailed;
      set_file_size_limit(limit);
      int code = write_in_child_process(path, big, message);
      // Still healthy: the same process writes and reads another checkpoint.
      set_file_size_limit(RLIM_INFINITY);
      const std::string again = path + ".again.nc";
      std::string unused;
      if (write_in_child_process(again, old, unused) != kNoError || read_checkpoint(again).step != old.step)
        code = kOtherError;
      fs::remove(again);
      return code;
    });
    ASSERT_TRUE(WIFEXITED(r.status)) << "child killed by signal " << WTERMSIG(r.status);
    EXPECT_EQ(WEXITSTATUS(r.status), kCleanError) << r.message;
    expect_one_line_naming(r.message, path);
    EXPECT_NE(r.message.find(std::strerror(EFBIG)), std::string::npos) << r.message;

    EXPECT_FALSE(has_partial(dir.path()));
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"rb.checkpoint.7.nc"});
    EXPECT_EQ(file_bytes(path), before);
  }
  expect_identical(old, read_checkpoint(path));
}

// With SIGXFSZ at its default, the write that passes the limit kills the writing process;
// the caller still gets one line, and nothing is left behind.
TEST(Checkpoint, AWriterKilledByASignalGivesACleanError) {
  TempDir dir;
  const std::string path = dir.file("rb.checkpoint.8.nc");
  const ChildResult r = run_in_child([&](std::string& message) {
    if (::signal(SIGXFSZ, SIG_DFL) == SIG_ERR) return kSetupFailed;
    set_file_size_limit(rlim_t(8) << 10);
    return write_in_child_process(path, sample_checkpoint({24, 16, 12}), message);
  });
  ASSERT_TRUE(WIFEXITED(r.status)) << "child killed by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kCleanError) << r.message;
  expect_one_line_naming(r.message, path);
  EXPECT_NE(r.message.find(std::string("killed by signal ") + std::to_string(SIGXFSZ) + " (" + strsignal(SIGXFSZ) + ")"),
            std::string::npos)
      << r.message;
  EXPECT_TRUE(entries(dir.path()).empty());
}

// A program that ignores SIGCHLD has its children reaped for it; the write still succeeds.
TEST(Checkpoint, WritesWhenSigchldIsIgnored) {
  TempDir dir;
  const std::string path = dir.file("rb.checkpoint.9.nc");
  const Checkpoint c = sample_checkpoint({3, 2, 2});
  const ChildResult r = run_in_child([&](std::string& message) {
    if (::signal(SIGCHLD, SIG_IGN) == SIG_ERR) return kSetupFailed;
    const int code = write_in_child_process(path, c, message);
    return code == kNoError && read_checkpoint(path).step == c.step ? kNoError : code;
  });
  ASSERT_TRUE(WIFEXITED(r.status)) << "child killed by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), kNoError) << r.message;
  expect_identical(c, read_checkpoint(path));
}

TEST(Checkpoint, AnotherFormatVersionIsRefused) {
  TempDir dir;
  const std::string path = dir.file("future.nc");
  write_checkpoint(path, sample_checkpoint());
  edit_file(path, [](int ncid) {
    const int seven = 7;
    ASSERT_EQ(nc_put_att_int(ncid, NC_GLOBAL, "bouss_checkpoint_format", NC_INT, 1, &seven), NC_NOERR);
  });
  EXPECT_EQ(read_error(path), "checkpoint " + path + ": written by format version 7; this build reads versions 2 and 3");
}

TEST(Checkpoint, AnOutputFileIsNotACheckpoint) {
  TempDir dir;
  const std::string path = dir.file("run.nc");
  Case c;
  c.name = "small";
  c.n = {2, 2, 2};
  c.extent = {{{0, 1}, {0, 1}, {0, 1}}};
  c.output.streams = {OutputStream{}};
  c.output.streams.at(0).fields = {"T"};
  NetcdfWriter w(path, c);
  w.write(0.0, {{"T", std::vector<double>(8, 1.0)}}, {});
  w.close();
  const std::string message = read_error(path);
  expect_one_line_naming(message, path);
  EXPECT_NE(message.find("not a bouss checkpoint"), std::string::npos) << message;
}

TEST(Checkpoint, GarbageTruncatedAndMissingFilesAreRefused) {
  TempDir dir;
  const std::string garbage = dir.file("garbage.nc");
  {
    std::ofstream out(garbage, std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 4096; ++i) out.put(char(rng()));
  }
  std::string message = read_error(garbage);
  expect_one_line_naming(message, garbage);
  EXPECT_NE(message.find("not a NetCDF-4 file"), std::string::npos) << message;

  const std::string whole = dir.file("whole.nc"), truncated = dir.file("truncated.nc");
  write_checkpoint(whole, sample_checkpoint({8, 8, 8}));
  const std::string bytes = file_bytes(whole);
  std::ofstream(truncated, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  message = read_error(truncated);
  expect_one_line_naming(message, truncated);
  EXPECT_NE(message.find("truncated or damaged"), std::string::npos) << message;

  const std::string missing = dir.file("missing.nc");
  EXPECT_EQ(read_error(missing), "checkpoint " + missing + ": no such file");
}

TEST(Checkpoint, DamagedContentsAreRefused) {
  TempDir dir;
  const Checkpoint c = sample_checkpoint();
  const auto damaged = [&](const std::string& name, auto edit) {
    const std::string path = dir.file(name + ".nc");
    write_checkpoint(path, c);
    edit_file(path, edit);
    const std::string message = read_error(path);
    expect_one_line_naming(message, path);
    return message;
  };

  std::string m = damaged("missing_variable", [](int ncid) {
    int varid = -1;
    ASSERT_EQ(nc_inq_varid(ncid, "G_w", &varid), NC_NOERR);
    ASSERT_EQ(nc_rename_var(ncid, varid, "G_w_old"), NC_NOERR);
  });
  EXPECT_NE(m.find("damaged: array 'G_w' (listed in bouss_arrays) is missing"), std::string::npos) << m;

  m = damaged("wrong_shape", [](int ncid) {
    int varid = -1, dims[3];
    ASSERT_EQ(nc_inq_varid(ncid, "T", &varid), NC_NOERR);
    ASSERT_EQ(nc_rename_var(ncid, varid, "T_old"), NC_NOERR);
    ASSERT_EQ(nc_inq_dimid(ncid, "z", &dims[0]), NC_NOERR);
    ASSERT_EQ(nc_inq_dimid(ncid, "yf", &dims[1]), NC_NOERR);
    ASSERT_EQ(nc_inq_dimid(ncid, "xf", &dims[2]), NC_NOERR);
    ASSERT_EQ(nc_def_var(ncid, "T", NC_DOUBLE, 3, dims, &varid), NC_NOERR);
  });
  EXPECT_NE(m.find("damaged: array 'T' is on (z, yf, xf)"), std::string::npos) << m;

  m = damaged("missing_checksum", [](int ncid) {
    int varid = -1;
    ASSERT_EQ(nc_inq_varid(ncid, "G_T", &varid), NC_NOERR);
    ASSERT_EQ(nc_del_att(ncid, varid, "bouss_checksum"), NC_NOERR);
  });
  EXPECT_NE(m.find("damaged: array 'G_T' has no attribute bouss_checksum"), std::string::npos) << m;

  m = damaged("missing_attribute", [](int ncid) { ASSERT_EQ(nc_del_att(ncid, NC_GLOBAL, "last_dt"), NC_NOERR); });
  EXPECT_NE(m.find("damaged: no global attribute 'last_dt'"), std::string::npos) << m;

  m = damaged("float_state", [](int ncid) {
    const float f = 1.5f;
    ASSERT_EQ(nc_put_att_float(ncid, NC_GLOBAL, "state.next_output_time", NC_FLOAT, 1, &f), NC_NOERR);
  });
  EXPECT_NE(m.find("damaged: global attribute 'state.next_output_time' is not one double"), std::string::npos) << m;
}

// Each array carries a checksum: one flipped bit in the data is found, not restarted from.
TEST(Checkpoint, AFlippedBitInTheDataIsFound) {
  TempDir dir;
  const std::string path = dir.file("flipped.nc");
  Checkpoint c = sample_checkpoint({4, 4, 4});
  const double marker = 1.2345678901234567e-123;
  for (auto& v : c.arrays[3].values) v = marker;  // T
  write_checkpoint(path, c);

  std::string bytes = file_bytes(path);
  char pattern[sizeof marker];
  std::memcpy(pattern, &marker, sizeof marker);
  const auto at = bytes.find(std::string(pattern, sizeof pattern));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 8 * 20 + 3] ^= 0x10;  // inside the 21st value of T
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));

  const std::string message = read_error(path);
  expect_one_line_naming(message, path);
  EXPECT_NE(message.find("damaged: array 'T' does not match its checksum"), std::string::npos) << message;
  // Read by blocks, the ranks' parts together find it (here one rank's block: the whole).
  CheckpointBlock block;
  block.n = c.n;
  for (int s = 0; s < 4; ++s)
    block.boxes[std::size_t(s)] = Box{{0, 0, 0}, {c.n[0] + (s == 1), c.n[1] + (s == 2), c.n[2] + (s == 3)}};
  const Checkpoint parts = read_checkpoint(path, block);
  EXPECT_EQ(parts.checksums.size(), 9u);
  EXPECT_EQ(checkpoint_checksum_failure(path, parts.checksums, *Communicator::self()),
            "checkpoint " + path + ": damaged: array 'T' does not match its checksum");
}

// Two values swapped: each value intact, but not where it belongs.
TEST(Checkpoint, TwoValuesSwappedAreFound) {
  TempDir dir;
  const std::string path = dir.file("swapped.nc");
  Checkpoint c = sample_checkpoint({4, 4, 4});
  write_checkpoint(path, c);
  edit_file(path, [&](int ncid) {
    int varid = -1;
    ASSERT_EQ(nc_inq_varid(ncid, "p", &varid), NC_NOERR);
    std::vector<double> v = c.arrays[4].values;
    std::swap(v[3], v[40]);
    ASSERT_EQ(nc_put_var_double(ncid, varid, v.data()), NC_NOERR);
  });
  EXPECT_NE(read_error(path).find("damaged: array 'p' does not match its checksum"), std::string::npos);
}
