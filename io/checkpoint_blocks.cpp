// Checkpoints written by every rank at once, each its own block of every array (parallel
// NetCDF): see io/checkpoint.hpp and docs/checkpoint.md, "Written by every rank".
#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "io/checkpoint_checksum.hpp"
#include "io/checkpoint_detail.hpp"
#include "io/file_util.hpp"
#include "io/writeback.hpp"
#include "parallel/communicator.hpp"

#ifdef BOUSS_HAVE_PARALLEL_NETCDF
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <netcdf_par.h>
#endif

namespace bouss {
namespace {

using namespace checkpoint_detail;

#ifdef BOUSS_HAVE_PARALLEL_NETCDF
// Rank 0's checkpoint less its arrays' values, as bytes for a broadcast: NetCDF's definitions
// in a parallel file are collective, so every rank defines it from rank 0's metadata (the
// record counts, the flat arrays' sizes: only rank 0 knows them).
class Packer {
 public:
  void number(double v) { raw(&v, sizeof v); }
  void integer(std::int64_t v) { raw(&v, sizeof v); }
  void text(const std::string& t) {
    integer(std::int64_t(t.size()));
    bytes_.append(t);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  std::string bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(const std::string& bytes) : bytes_(bytes) {}
  double number() {
    double v = 0;
    raw(&v, sizeof v);
    return v;
  }
  std::int64_t integer() {
    std::int64_t v = 0;
    raw(&v, sizeof v);
    return v;
  }
  std::string text() {
    const std::size_t n = std::size_t(integer());
    if (at_ + n > bytes_.size()) throw std::runtime_error("checkpoint metadata: truncated");
    std::string t = bytes_.substr(at_, n);
    at_ += n;
    return t;
  }

 private:
  void raw(void* p, std::size_t n) {
    if (at_ + n > bytes_.size()) throw std::runtime_error("checkpoint metadata: truncated");
    std::memcpy(p, bytes_.data() + at_, n);
    at_ += n;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

std::string pack_metadata(const Checkpoint& c) {
  Packer p;
  for (const std::string* t : {&c.provenance, &c.case_json, &c.case_source}) p.text(*t);
  for (const int n : c.n) p.integer(n);
  p.number(c.time);
  p.number(c.last_dt);
  for (const std::int64_t v : {c.step, c.output_records, c.series_records}) p.integer(v);
  p.integer(std::int64_t(c.arrays.size()));
  for (const auto& arr : c.arrays) {
    p.text(arr.name);
    p.integer(arr.stagger);
    p.integer(std::int64_t(arr.values.size()));
    for (int a = 0; a < 3; ++a) p.integer(arr.region.lo[a]), p.integer(arr.region.hi[a]);
  }
  p.integer(std::int64_t(c.state.size()));
  for (const auto& [key, value] : c.state) p.text(key), p.number(value);
  p.integer(std::int64_t(c.text.size()));
  for (const auto& [key, value] : c.text) p.text(key), p.text(value);
  return p.bytes();
}

// The metadata into `c` (whose arrays keep this rank's values, matched by name); the flat
// arrays' sizes as rank 0 has them.
std::vector<std::size_t> unpack_metadata(const std::string& bytes, Checkpoint& c) {
  Unpacker u(bytes);
  c.provenance = u.text();
  c.case_json = u.text();
  c.case_source = u.text();
  for (int& n : c.n) n = int(u.integer());
  c.time = u.number();
  c.last_dt = u.number();
  c.step = u.integer();
  c.output_records = u.integer();
  c.series_records = u.integer();
  // Rank 0's arrays, in its order: this rank's values of each grid array, and no values of a
  // flat array (rank 0 writes those: a time average's sums, which only it holds).
  std::vector<CheckpointArray> arrays;
  std::vector<std::size_t> flat;
  for (std::int64_t i = 0, n = u.integer(); i < n; ++i) {
    CheckpointArray arr;
    arr.name = u.text();
    arr.stagger = int(u.integer());
    const std::size_t size = std::size_t(u.integer());
    for (int a = 0; a < 3; ++a) arr.region.lo[a] = int(u.integer()), arr.region.hi[a] = int(u.integer());
    const auto own = std::find_if(c.arrays.begin(), c.arrays.end(), [&](const CheckpointArray& a) { return a.name == arr.name; });
    if (arr.stagger == CheckpointArray::flat_array) {
      flat.push_back(size);
      if (own != c.arrays.end()) arr.values = std::move(own->values);
    } else {
      if (own == c.arrays.end() || own->stagger != arr.stagger || own->region.lo != arr.region.lo ||
          own->region.hi != arr.region.hi)
        throw std::runtime_error("checkpoint: rank 0's array '" + arr.name + "' is not this rank's");
      arr.values = std::move(own->values);
    }
    arrays.push_back(std::move(arr));
  }
  c.arrays = std::move(arrays);
  c.state.clear();
  for (std::int64_t i = 0, n = u.integer(); i < n; ++i) {
    const std::string key = u.text();
    c.state[key] = u.number();
  }
  c.text.clear();
  for (std::int64_t i = 0, n = u.integer(); i < n; ++i) {
    const std::string key = u.text();
    c.text[key] = u.text();
  }
  return flat;
}

// Every rank's outcome of a step of the collective write, agreed: throws the first failing
// rank's "checkpoint PATH: REASON" on every rank.
void agree_or_fail(const Communicator& ranks, const std::string& path, const std::string& reason) {
  const std::string first = first_failure(ranks, !reason.empty(), reason);
  if (!first.empty()) fail(path, first);
}

// Where the ranks' blocks (their supplied cells) are cut along each axis: every block's
// first cell that is not 0.
Cuts cuts_of(const Communicator& ranks, const Box& cells) {
  std::vector<Box> all(std::size_t(ranks.size()));
  ranks.allgather(&cells, all.data(), sizeof(Box));
  Cuts cuts;
  for (const Box& b : all)
    for (int a = 0; a < 3; ++a)
      if (!b.empty() && b.lo[a] > 0) cuts[std::size_t(a)].push_back(b.lo[a]);
  for (auto& axis : cuts) {
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  }
  return cuts;
}

// The box of array `arr` this rank supplies, in the array's own indices (a region's).
Box supplied_part(const CheckpointArray& arr, const CheckpointBlock& supplied) {
  return part_in_array(arr, supplied.boxes[std::size_t(arr.stagger + 1)]);
}

// A string of rank 0's, on every rank.
std::string broadcast_text(const Communicator& ranks, std::string text) {
  std::uint64_t size = text.size();
  ranks.broadcast(&size, sizeof size, 0);
  text.resize(std::size_t(size));
  if (size) ranks.broadcast(&text[0], std::size_t(size), 0);
  return text;
}
#endif

}  // namespace

void write_checkpoint(const std::string& path, Checkpoint mine, const CheckpointBlock& supplied,
                      const Communicator& ranks, CheckpointTimes* times) {
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
  Stopwatch watch(times);
  if (!ranks_write_one_file(ranks))
    throw std::logic_error("write_checkpoint by block: the ranks cannot write one file together");
  // Rank 0's checks first (names, the path, the disk's room), as for one rank's checkpoint;
  // every rank's own: its grid arrays hold its boxes' values.
  std::string problem;
  for (const auto& arr : mine.arrays)
    if (arr.stagger >= -1 && arr.stagger <= 2 && arr.values.size() != std::size_t(supplied_part(arr, supplied).cells()))
      problem = "array '" + arr.name + "' holds " + std::to_string(arr.values.size()) + " values, not its block's " +
                std::to_string(supplied_part(arr, supplied).cells());
  // The chunks lie within the blocks (each rank then writes its own chunks alone).
  const Cuts cuts = cuts_of(ranks, supplied.boxes[0]);
  if (ranks.rank() == 0 && problem.empty()) {
    problem = path.empty() ? "empty file name" : check_contents(mine, false);
    if (problem.empty()) switch (path_kind(path)) {
        case PathKind::missing:
        case PathKind::regular: break;
        case PathKind::directory: problem = "it is a folder"; break;
        case PathKind::other: problem = "it is not a regular file (a device, pipe or socket is never replaced)"; break;
      }
    if (problem.empty()) {
      // The whole arrays' chunks bound a block's values from above (checkpoint_bytes).
      const std::uintmax_t need = checkpoint_bytes(mine, cuts), have = free_bytes(path);
      if (have < need) problem = "needs " + format_bytes(double(need)) + ", the disk has " + format_bytes(double(have)) + " free";
    }
  }
  // Every rank's file size limit (ulimit -f), which its writes meet: HDF5 allocates a parallel
  // file's chunks while it defines them, in collective calls, and a rank failing inside one
  // would leave the others waiting in it.
  struct rlimit limit {};
  if (problem.empty() && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uintmax_t need = checkpoint_bytes(mine, cuts);
    if (need > std::uintmax_t(limit.rlim_cur))
      problem = "needs " + format_bytes(double(need)) + ", the file size limit (ulimit -f) of rank " +
                std::to_string(ranks.rank()) + " is " + format_bytes(double(limit.rlim_cur));
  }
  agree_or_fail(ranks, path, problem);

  // Rank 0's metadata in place of this rank's (its values stay: no copy of the arrays).
  Checkpoint& c = mine;
  const std::vector<std::size_t> flat = unpack_metadata(broadcast_text(ranks, pack_metadata(mine)), c);
  PartialFile partial{broadcast_text(ranks, partial_path(path))};
  std::string reason;
  if (ranks.rank() == 0) {
    // Created first with open(2) for the system's own reason on failure.
    const int fd = ::open(partial.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) reason = "cannot create " + partial.path + ": " + std::strerror(errno);
    else ::close(fd), partial.created = true;
  }
  agree_or_fail(ranks, path, reason);

  // Every rank's puts, checked before the first collective call: a rank that failed inside
  // one would leave the others waiting in it. Each array's checksum, the sum of the ranks'
  // parts (a flat array's rank 0's).
  std::vector<std::vector<Piece>> pieces;
  std::vector<ArrayLayout> layouts;
  std::vector<std::uint64_t> checksums;
  for (std::size_t i = 0, f = 0; i < c.arrays.size(); ++i) {
    const CheckpointArray& arr = c.arrays[i];
    const bool flat_array = arr.stagger == CheckpointArray::flat_array;
    layouts.push_back(layout_of(c, i, flat_array ? flat.at(f++) : 0, cuts));
    const Box part = flat_array ? Box{} : supplied_part(arr, supplied);
    pieces.push_back(pieces_of(c, i, layouts.back(), flat_array ? nullptr : &part, ranks.rank() == 0));
    if (reason.empty()) reason = check_pieces(c, i, layouts.back(), pieces.back());
    if (flat_array) checksums.push_back(ranks.rank() == 0 ? checksum_part(arr.values.data(), arr.values.size()) : 0);
    else if (reason.empty()) checksums.push_back(checksum_part(arr.values.data(), part, part, layouts.back().extents));
    else checksums.push_back(0);
  }
  agree_or_fail(ranks, path, reason);
  combine_across_ranks(ranks, checksums.data(), int(checksums.size()),
                       [](std::uint64_t a, std::uint64_t b) { return a + b; });
  watch.lap(&CheckpointTimes::checks);

  int ncid = -1;
  errno = 0;
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(ranks.mpi_comm());
  if (const int rc = nc_create_par(partial.path.c_str(), NC_CLOBBER | NC_NETCDF4, comm, MPI_INFO_NULL, &ncid); rc != NC_NOERR)
    reason = "cannot create " + partial.path + ": " + nc_strerror(rc) + system_reason(errno);
  agree_or_fail(ranks, path, reason);
  // After a failure inside HDF5 the file is abandoned, not closed (write_in_child says why);
  // the run stops with the agreed line.
  // The disk writes each array while the next goes into the page cache (io/writeback.hpp);
  // otherwise it would start at the fsync below, with the whole checkpoint still to write.
  Writeback writeback(partial.path);
  try {
    const std::vector<NcVar> vars = define_checkpoint(ncid, c, flat, cuts, checksums);
    // Where each chunk is one rank's, every rank writes its own independently (each chunk one
    // contiguous write, no rank waiting on another); else every put is collective.
    for (std::size_t i = 0; i < vars.size(); ++i)
      nc::check(nc_var_par_access(ncid, vars[i].getId(), layouts[i].own_chunks ? NC_INDEPENDENT : NC_COLLECTIVE),
                "parallel access");
    for (std::size_t i = 0; i < c.arrays.size(); ++i) {
      if (layouts[i].own_chunks)  // a rank with nothing of it makes no put
        pieces[i].erase(std::remove_if(pieces[i].begin(), pieces[i].end(),
                                       [](const Piece& p) {
                                         return std::any_of(p.count.begin(), p.count.end(), [](std::size_t n) { return n == 0; });
                                       }),
                        pieces[i].end());
      write_pieces(vars[i], c, i, pieces[i]);
      writeback.start();
    }
  } catch (const NcException& e) {
    reason = "cannot write " + partial.path + ": " + nc_reason(e) + system_reason(errno);
  } catch (const std::exception& e) {
    reason = "cannot write " + partial.path + ": " + e.what();
  }
  agree_or_fail(ranks, path, reason);
  errno = 0;
  if (const int rc = nc_close(ncid); rc != NC_NOERR)
    reason = "cannot finish " + partial.path + ": " + nc_strerror(rc) + system_reason(errno);
  agree_or_fail(ranks, path, reason);
  watch.lap(&CheckpointTimes::write);
  // Every rank's writes on the device (on several nodes, each node's page cache holds its
  // ranks' writes), then rank 0 puts it in place, as one rank's checkpoint.
  try {
    fsync_file(partial.path);
  } catch (const std::exception& e) {
    reason = e.what();
  }
  agree_or_fail(ranks, path, reason);
  if (ranks.rank() == 0) {
    try {
      replace_file(partial.path, path);
      partial.created = false;  // it is the checkpoint now
    } catch (const std::exception& e) {
      reason = e.what();
      if (path_kind(partial.path) == PathKind::missing) partial.created = false, reason = std::string("written, but ") + reason;
    }
  }
  agree_or_fail(ranks, path, reason);
  watch.lap(&CheckpointTimes::sync);
#else
  (void)path, (void)mine, (void)supplied, (void)ranks, (void)times;
  throw std::logic_error("write_checkpoint by block: this build has no parallel NetCDF");
#endif
}

}  // namespace bouss
