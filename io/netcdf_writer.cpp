// NetCDF-4 / CF-1.8 output: see io/netcdf_writer.hpp and docs/output.md.
//
// The data path (records, flushes, closing) uses the NetCDF C API so that every call's
// status and errno are seen where the call is made; the definitions use handles on the same
// C API (io/netcdf_handles.hpp: they do not own the file, and throw nc::Error).
#include "io/netcdf_writer.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <stdio.h>
#include <netcdf.h>
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <netcdf_par.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "io/build_info.hpp"
#include "io/file_util.hpp"
#include "io/flush_journal.hpp"
#include "io/netcdf_attributes.hpp"
#include "io/netcdf_handles.hpp"
#include "io/record_check.hpp"
#include "io/run_identity.hpp"
#include "io/writeback.hpp"
#include "parallel/communicator.hpp"
#include "config/fields.hpp"
#include "config/reference_profile.hpp"
#include "config/units.hpp"

namespace bouss {
namespace {

namespace fs = std::filesystem;
using NcDim = nc::Dim;
using NcGroup = nc::Group;
using NcVar = nc::Var;
using NcException = nc::Error;

// Why a failed write used to end in SIGSEGV (exit 139) after the error was reported:
// HDF5 (1.10) registers H5_term_library with atexit when it starts. Once a flush of a file
// has failed (a full disk, a file size limit), HDF5 can no longer flush or close that file:
// its metadata cache keeps the skip list of the failed flush ("slist already enabled?"), so
// every later flush fails too. A failed close tears the file down (H5F__dest sets
// f->shared = NULL) but keeps its ID registered, because the close callback returned an
// error; H5_term_library then closes that ID again at exit and dereferences the NULL.
// Closing it ourselves is no way out: nc_close/nc_abort fail the same way, and NetCDF's
// report of the objects left open then crashes at once (H5Iget_name on the torn-down file).
// So after a failure the writer abandons the handle without closing it (abandon_handle),
// and HDF5's exit handler is turned off. That works only before HDF5 starts (at the first
// NetCDF-4 call), hence a static object of libbouss. Every file that is not abandoned is
// closed explicitly, so the handler has nothing left to do; the system closes the rest.
// The symbol is looked up at run time: libbouss links NetCDF, which brings HDF5 along.
struct Hdf5ExitHandlerOff {
  Hdf5ExitHandlerOff() {
    using DontAtexit = int (*)();
    if (void* fn = ::dlsym(RTLD_DEFAULT, "H5dont_atexit")) reinterpret_cast<DontAtexit>(fn)();
  }
};
const Hdf5ExitHandlerOff hdf5_exit_handler_off;

#ifdef BOUSS_VERSION
#define BOUSS_STR2(x) #x
#define BOUSS_STR(x) BOUSS_STR2(x)
// BOUSS_VERSION may be given either as a string literal or as a bare token.
inline std::string version_string() {
  std::string v = BOUSS_STR(BOUSS_VERSION);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}
#endif

std::string source_string() {
#ifdef BOUSS_VERSION
  return "bouss " + version_string();
#else
  return "bouss";
#endif
}

// One line for a failed NetCDF call. HDF5 reports a failed write as NC_EHDFERR ("NetCDF: HDF
// error"); the errno that the failed system call left says why ("No space left on device",
// "File too large"). Positive statuses are errno values themselves.
std::string nc_reason(int status, int err) {
  if (status == NC_EHDFERR && err != 0) return std::strerror(err);
  return nc_strerror(status);
}

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

// CF cell_methods of a profile of an averaged stream: the horizontal statistic of
// config/fields.hpp's profile table, taken over the planes and the record's interval
// together (T_rms about the mean over both).
const char* averaged_profile_cell_methods(const std::string& profile) {
  if (profile == "T_rms") return "x: y: time: standard_deviation";
  if (profile == "u_rms" || profile == "v_rms" || profile == "w_rms") return "x: y: time: root_mean_square";
  return "x: y: time: mean";  // T_mean, wT_mean
}

// The record's own scalar; the series' variables are described by whoever writes them
// (NetcdfWriter::describe_diagnostics); anything else gets long_name = key with '_' -> ' ' and no units (dimensionless).
const DiagnosticInfo kStepInfo{"step", "time step number", "1"};

const char* units_system_name(Units u) {
  switch (u) {
    case Units::dimensional: return "dimensional";
    case Units::diffusive: return "diffusive";
    case Units::free_fall: return "free_fall";
    case Units::buoyancy: return "buoyancy";
  }
  return "unknown";
}

const char* units_note(Units u) {
  switch (u) {
    case Units::diffusive:
      return "diffusive units: length H, time H^2/kappa, temperature dT";
    case Units::free_fall:
      return "free-fall units: length H, time H/U with U = sqrt(alpha g dT H), temperature dT";
    case Units::buoyancy:
      return "buoyancy units (lock exchange): length h (half the depth), time h/u_b with u_b = sqrt(g' h) and "
             "g' = alpha g dT, temperature dT";
    case Units::dimensional: break;
  }
  return "";
}

// The file the output lands in: `path` itself, or the regular file that a symbolic link at
// `path` leads to (written through: the link stays). Throws std::runtime_error with the
// reason alone (the caller names the path) for a folder, a device, pipe or socket, and a
// link whose target is missing or is one of those.
std::string output_target(const std::string& path) {
  std::string target = path;
  std::string via;  // "it is a symbolic link to TARGET, which " in messages
  if (is_symlink(path)) {
    std::error_code ec;
    const fs::path resolved = fs::canonical(path, ec);
    if (ec) {
      std::error_code ec2;
      const fs::path to = fs::read_symlink(path, ec2);
      throw std::runtime_error("it is a symbolic link to " + (ec2 ? std::string("?") : to.string()) +
                               ", which does not exist (" + ec.message() +
                               "); a link is written through only to an existing regular file");
    }
    target = resolved.string();
    via = "it is a symbolic link to " + target + ", which ";
  }
  switch (path_kind(target)) {
    case PathKind::missing:
    case PathKind::regular: return target;
    case PathKind::directory: throw std::runtime_error((via.empty() ? "it " : via) + "is a folder");
    case PathKind::other:
      throw std::runtime_error((via.empty() ? "it exists and " : via) +
                               "is not a regular file (a device, pipe or socket); bouss writes only "
                               "regular files and never replaces anything else");
  }
  return target;
}

// The RLIMIT_FSIZE soft limit (ulimit -f) in bytes, or UINTMAX_MAX when there is none.
std::uintmax_t file_size_limit() {
  struct rlimit r{};
  if (::getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINTMAX_MAX;
  return static_cast<std::uintmax_t>(r.rlim_cur);
}

std::uintmax_t file_size(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uintmax_t>(st.st_size) : 0;
}

// Creates the partial file with O_CREAT|O_EXCL, so that a writer never truncates a file it
// did not create: another writer of the same FILE in this process, or a partial file that a
// killed run with the same pid left, keeps its data, and this writer takes the next name.
std::string claim_partial_file(const std::string& target) {
  const std::string first = partial_path(target);  // TARGET.<pid>.partial
  const std::string stem = first.substr(0, first.size() - std::strlen(".partial"));
  for (int n = 1; n <= 1000; ++n) {
    const std::string name = n == 1 ? first : stem + "." + std::to_string(n) + ".partial";
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST) throw std::runtime_error("cannot create " + name + ": " + std::strerror(errno));
  }
  throw std::runtime_error("cannot create " + first + ": it and 999 alternative names exist");
}

// HDF5 metadata that one record may add beyond its data: chunk-index B-tree nodes (a few
// KiB per variable when a node splits), the object headers of variables defined on first
// use, and the first 4 KiB chunk of each one-dimensional variable. Measured with HDF5
// 1.10.8: at most 38 KiB for a first snapshot (two new scalars), 68 KiB for a first
// diagnostics record (nine new variables), a few KiB otherwise. The free space and the
// file size limit are checked against data + this before HDF5 is asked to write, because a
// write that fails inside HDF5's flush can leave the file unreadable (docs/output.md).
constexpr std::uintmax_t kRecordOverheadBytes = std::uintmax_t(64) << 10;
constexpr std::uintmax_t kPerVariableOverheadBytes = std::uintmax_t(16) << 10;
// The largest HDF5 chunk of a field (docs/output.md, "Chunks").
constexpr std::size_t kMaxChunkBytes = std::size_t(4) << 20;
// What the file holds before the first record, besides the case JSON.
constexpr std::uintmax_t kHeaderBytes = std::uintmax_t(128) << 10;

// An earlier output file, open for reading for as long as this object lives.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path) {
    errno = 0;
    status_ = nc_open(path.c_str(), NC_NOWRITE, &ncid_);
    err_ = errno;
    if (status_ != NC_NOERR) ncid_ = -1;
  }
  ~ReadOnlyFile() {
    if (ncid_ >= 0) nc_close(ncid_);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  bool ok() const { return ncid_ >= 0; }
  std::string reason() const { return status_ == NC_EHDFERR && err_ == 0 ? "not a readable NetCDF-4 file" : nc_reason(status_, err_); }
  int id() const { return ncid_; }

 private:
  int ncid_ = -1;
  int status_ = NC_NOERR;
  int err_ = 0;
};

}  // namespace

struct NetcdfWriter::Impl {
  struct Field {
    NcVar var;
    std::array<size_t, 3> n;  // nx_f, ny_f, nz_f (a profile: 1, 1, its z levels)
    bool profile = false;     // on (profile_time, z or zf)
    size_t values() const { return n[0] * n[1] * n[2]; }
    // Where record `rec` of planes [k0, k0 + nk) lies in the variable.
    std::vector<size_t> start(size_t rec, size_t k0) const {
      return profile ? std::vector<size_t>{rec, k0} : std::vector<size_t>{rec, k0, 0, 0};
    }
    std::vector<size_t> count(size_t nk) const {
      return profile ? std::vector<size_t>{1, nk} : std::vector<size_t>{1, nk, n[1], n[0]};
    }
  };

  std::string path;     // as given
  std::string target;   // the file close() replaces: path, or a symbolic link's target
  std::string partial;  // where the data is until close()
  Units units = Units::dimensional;
  bool single = false;       // snapshot fields stored as float (output.precision)
  long open_record = -1;     // a record begun and not yet ended (the slab path)
  // The partial file's writeback, started after each slab and record (io/writeback.hpp); on
  // a file every rank writes it also stands in for MPI-IO's fsync at each flush.
  std::unique_ptr<Writeback> writeback;
  int ncid = -1;        // open NetCDF handle, -1 when released
  bool set_up = false;  // the header is written; from here on the partial file is kept
  bool failed = false;  // a NetCDF failure ended this output (the handle is abandoned)
  bool closed = false;  // close() put the file in place
  NcGroup root;
  NcDim time_dim;
  NcVar time_var;
  std::map<std::string, Field> fields;
  // The variables on the grid a record holds: the stream's fields, in case order, then its
  // moments' variables (an averaged stream), in case order.
  std::vector<std::string> required_fields;
  std::vector<std::string> moments;          // the moments' variables (T_variance, ...), in case order
  std::vector<std::string> profiles;         // the stream's profiles, in case order
  NcDim profile_dim;                         // profile_time (with profiles)
  NcVar profile_time;
  // An averaged stream: each record's interval [start, end], time_bnds(time, nv) and
  // profile_time_bnds(profile_time, nv) (CF 7.1); null for snapshots.
  bool averaged = false;
  NcVar time_bnds, profile_time_bnds;
  OutputStream stream;                       // what this file holds
  std::array<int, 3> box_lo{}, box_n{};      // the cells of the region
  std::map<std::string, NcVar> scalars;
  std::map<std::string, DiagnosticInfo> described;  // the series' variables, as describe_diagnostics gave them
  std::vector<std::string> described_order;         // their names in the order given
  // The diagnostics series: its own unlimited dimension, written more often than snapshots.
  NcDim series_dim;
  NcVar series_time;
  std::map<std::string, NcVar> series;
  std::set<std::string> reserved;  // dimension, coordinate and field names
  long* records = nullptr;         // the writer's counters, for messages
  long* series_records = nullptr;
  // Holds HDF5's in-place writes between flushes, so that a kill leaves the file as the last
  // flush left it (io/flush_journal.hpp); null where HDF5 cannot be followed (a warning says so).
  std::unique_ptr<FlushJournal> journal;
  // Test hook (BOUSS_TEST_KILL_IN_RECORD=R:W or R:commit:W): SIGKILL at HDF5's W-th write
  // from the start of snapshot R, or after the W-th write of its commit into the file.
  long kill_record = -1, kill_write = 0;
  bool kill_in_commit = false;
  bool remove_partial = false;  // a restart's copy was refused: the partial holds only copies
  bool no_replace = false;      // close() never replaces an existing FILE (bouss recover)
  // A file every rank writes (share): the IO threads' ranks; null for one rank's file.
  const Communicator* ranks = nullptr;
  bool lead() const { return !ranks || ranks->rank() == 0; }
  bool parallel_file = false;  // made or opened by parallel HDF5: every variable's access collective
  std::array<int, 2> chunk_block{0, 0};  // the fields' chunks along x and y at most (0: whole)

  ~Impl() {
    writeback.reset();  // before MPI-IO's descriptors close
    // A failed run: close quietly. What HDF5 writes in place while closing is dropped, so the
    // partial file stays as its last flush left it: every flushed record, and nothing of a
    // record that was not complete.
    // (A file every rank writes: every rank's writer is destroyed at the same point, and the
    // close is collective.)
    if (ncid >= 0 && nc_close(ncid) != NC_NOERR) abandon_handle();
    ncid = -1;
    if (journal) journal->discard();
    journal.reset();
    if (remove_partial) std::remove(partial.c_str());
  }

  [[noreturn]] void fail(const std::string& reason) const {
    throw std::runtime_error("netCDF output " + path + ": " + reason);
  }

  // What a failed output leaves, for the end of an error message.
  std::string kept() const {
    return "; " + partial + " keeps the " + std::to_string(*records) + " snapshots and " +
           std::to_string(*series_records) + " diagnostics records flushed before";
  }
  // The same after a failure inside HDF5: its half-done flush never reaches the file when
  // the flush journal follows it.
  std::string kept_unless_damaged() const {
    if (journal) return kept();
    return "; " + partial + " held " + std::to_string(*records) + " snapshots and " +
           std::to_string(*series_records) + " diagnostics records before (a failure inside HDF5 can damage it)";
  }

  // After a failed NetCDF call the handle is left open and forgotten: HDF5 cannot close a
  // file whose flush failed, and trying crashes (see Hdf5ExitHandlerOff). Nothing writes to
  // the file again; its descriptor and memory go when the process ends.
  void abandon_handle() {
    failed = true;
    ncid = -1;
    if (journal) journal->discard();  // the failed flush's in-place writes never reach the file
  }

  // A failed NetCDF call ends the output; the partial file keeps what was flushed before.
  [[noreturn]] void nc_failed(int status, int err, const std::string& what) {
    abandon_handle();
    fail(what + ": " + nc_reason(status, err) + (set_up ? kept_unless_damaged() : std::string()));
  }

  // Runs one NetCDF C call and reports its failure with the errno it left.
  template <class Call>
  void run(const std::string& what, Call&& call) {
    errno = 0;
    const int status = call();
    const int err = errno;
    if (status != NC_NOERR) nc_failed(status, err, what);
  }

  // Runs definitions through the handles (which throw nc::Error).
  template <class Define>
  auto define(const std::string& what, Define&& d) -> decltype(d()) {
    errno = 0;
    try {
      return d();
    } catch (const NcException& e) {
      const int err = errno;
      nc_failed(e.errorCode() != 0 ? e.errorCode() : NC_EHDFERR, err, what);
    }
  }

  // A field of the stream (not a profile) for a write into the record begun.
  const Field& record_field(const char* call, const std::string& name) const {
    require_writable(call);
    if (open_record < 0) fail(std::string(call) + ": no record begun");
    const auto it = fields.find(name);
    if (it == fields.end() || it->second.profile) fail("field '" + name + "' is not among the output fields");
    return it->second;
  }

  void require_writable(const char* what) const {
    if (closed) fail(std::string(what) + " after close()");
    if (failed || ncid < 0) fail(std::string(what) + " after an earlier error ended this output (" + partial + ")");
  }

  // Refuses, before HDF5 writes anything, a record that the free space or the file size
  // limit cannot take; the file then stays as the last flush left it. A file every rank
  // writes: rank 0 checks the free space, every rank its own file size limit (MPI-IO may
  // write from any rank), and every rank refuses with the first rank's line.
  void ensure_room(std::uintmax_t data_bytes, std::uintmax_t new_variables, const std::string& what) const {
    const std::uintmax_t need = data_bytes + kRecordOverheadBytes + new_variables * kPerVariableOverheadBytes;
    std::string problem;
    const std::uintmax_t free = lead() ? free_bytes(partial) : UINTMAX_MAX;
    const std::uintmax_t limit = file_size_limit();
    const std::uintmax_t size = file_size(partial);
    if (free < need)
      problem = what + ": " + std::strerror(ENOSPC) + " (it needs about " + format_bytes(double(need)) + ", " +
                format_bytes(double(free)) + " are free)" + (set_up ? kept() : std::string());
    else if (limit != UINTMAX_MAX && (size > limit || limit - size < need))
      problem = what + ": " + std::strerror(EFBIG) + " (the file size limit, ulimit -f, is " +
                format_bytes(double(limit)) + (ranks ? " on " + ranks->describe() : std::string()) +
                "; the file has " + format_bytes(double(size)) + " and needs about " + format_bytes(double(need)) +
                " more)" + (set_up ? kept() : std::string());
    if (ranks) problem = first_failure(*ranks, !problem.empty(), problem);
    if (!problem.empty()) fail(problem);
  }

  // Flushes (nc_sync), then commits the flush (io/flush_journal.hpp).
  void sync(const std::string& what) {
    run(what, [&] { return nc_sync(ncid); });
    commit(what);
  }

  void commit(const std::string& what) {
    if (ranks) return commit_together(what);
    if (!journal) return;
    try {
      journal->commit();
    } catch (const std::runtime_error& e) {
      abandon_handle();
      fail(what + ": " + e.what() + kept());
    }
  }

  // A file every rank writes: every other rank's held writes go to rank 0, which commits
  // them with its own; then every rank counts the file as the last commit.
  void commit_together(const std::string& what) {
    std::vector<char> held;
    if (journal && !lead()) held = journal->take_held();
    std::vector<char> all;
    ranks->gatherv(held.data(), held.size(), &all, 0);
    std::string problem;
    if (journal && lead()) {
      try {
        journal->hold(all);
        journal->commit();
      } catch (const std::runtime_error& e) {
        problem = e.what();
      }
    }
    problem = first_failure(*ranks, !problem.empty(), problem);
    if (journal && !lead()) journal->committed_elsewhere();
    if (!problem.empty()) {
      abandon_handle();
      fail(what + ": " + problem + kept());
    }
  }

  // Follows HDF5's writes to the new partial file from here on (after nc_create).
  void start_journal() {
    const int fd = hdf5_descriptor_of(partial);  // or, through MPI-IO, every descriptor of the file
    try {
      journal = std::make_unique<FlushJournal>(partial, fd >= 0 ? std::vector<int>{fd} : descriptors_of(partial), true);
    } catch (const std::runtime_error& e) {
      spdlog::warn("{}: no flush journal ({}): a kill while HDF5 flushes the file can damage records flushed "
                   "before (docs/output.md, \"Kills\")", partial, e.what());
    }
    if (const char* hook = std::getenv("BOUSS_TEST_KILL_IN_RECORD")) {
      char mode[16] = {};
      if (std::sscanf(hook, "%ld:%ld", &kill_record, &kill_write) != 2 &&
          std::sscanf(hook, "%ld:%15[a-z]:%ld", &kill_record, mode, &kill_write) == 3)
        kill_in_commit = std::string(mode) == "commit";
    }
  }

  // After the header's flush: a journal that saw no write of HDF5 follows nothing (HDF5 does
  // not write through the functions libbouss stands in for).
  void check_journal() {
    if (!journal || journal->writes_seen() > 0) return;
    spdlog::warn("{}: HDF5 writes it without libbouss's pwrite, so the flush journal cannot follow it: a kill "
                 "while HDF5 flushes the file can damage records flushed before (docs/output.md, \"Kills\")",
                 partial);
    journal.reset();
  }

  // Starts the device's writeback of what the last slab or record left in the page cache,
  // without waiting for it, so that the disk writes while HDF5 fills the next slab; otherwise
  // the dirty pages pile up in memory, the kernel throttles the writer once they pass its
  // limits, and the close's fsync pays for the rest at the end. (Linux; elsewhere the close's
  // fsync does it all.)
  void start_writeback() {
    if (!writeback) writeback = std::make_unique<Writeback>(partial);
    writeback->start();
  }

  // The file's data on the device: one rank's file by its writer; a file every rank writes by
  // every rank (each node's page cache holds the writes its ranks made), agreed.
  void fsync_everywhere(const std::string& what) {
    if (!ranks) return fsync_file(partial);
    std::string problem;
    try {
      fsync_file(partial);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    problem = first_failure(*ranks, !problem.empty(), problem);
    if (!problem.empty()) fail(what + ": " + problem);
  }

  // A file every rank writes: every rank takes part in each put (they are collective), and
  // rank 0 alone writes the values (the others' counts are zero), but in write_block.
  std::vector<size_t> counted(const std::vector<size_t>& count) const {
    return lead() ? count : std::vector<size_t>(count.size(), 0);
  }
  void put(const NcVar& v, const std::vector<size_t>& start, const std::vector<size_t>& count, const double* data,
           const std::string& what) {
    const std::vector<size_t> n = counted(count);
    run(what, [&] { return nc_put_vara_double(ncid, v.getId(), start.data(), n.data(), data); });
  }
  // Values already in the variable's own type (float or double).
  void put_raw(const NcVar& v, const std::vector<size_t>& start, const std::vector<size_t>& count, const void* data,
               const std::string& what) {
    const std::vector<size_t> n = counted(count);
    run(what, [&] { return nc_put_vara(ncid, v.getId(), start.data(), n.data(), data); });
  }
  size_t field_bytes() const { return single ? sizeof(float) : sizeof(double); }

  bool dimensional() const { return units == Units::dimensional; }

  // A dimensional run's quantities carry their SI units. A dimensionless quantity carries
  // none (CF 3.1: a variable without units is dimensionless), so that tools label it by its
  // long_name alone (xarray would add "[1]"); in a nondimensional run that is every one, and
  // units_note says which scales they are in, and units_scale the scale of this quantity
  // ("H/U", "dT", "h^3 u_b^2": config/units.hpp nondimensional_scale) where it has one.
  void put_units(const NcVar& v, const char* si_units) const {
    if (dimensional()) {
      if (std::string(si_units) != "1") v.putAtt("units", si_units);
    } else {
      v.putAtt("units_note", units_note(units));
      const std::string scale = nondimensional_scale(units, si_units);
      if (!scale.empty()) v.putAtt("units_scale", scale);
    }
  }

  NcVar scalar_var(const std::string& key, const std::string& what) {
    auto it = scalars.find(key);
    if (it != scalars.end()) return it->second;
    if (reserved.count(key) || series.count(key))
      fail("scalar '" + key + "' has the name of a dimension, coordinate, field or series variable");
    NcVar v = define(what, [&] { return described_var(key, time_dim); });
    scalars.emplace(key, v);
    return v;
  }

  NcVar series_var(const std::string& key, const std::string& what) {
    auto it = series.find(key);
    if (it != series.end()) return it->second;
    if (reserved.count(key) || scalars.count(key))
      fail("series '" + key + "' has the name of a dimension, coordinate, field or snapshot variable");
    if (series.empty()) {
      define(what, [&] {
        series_dim = root.addDim("diagnostic_time");  // unlimited
        series_time = root.addVar("diagnostic_time", NC_DOUBLE, series_dim);
        if (parallel_file) collective(series_time);
        series_time.putAtt("long_name", "time");
        put_units(series_time, "s");
        return 0;
      });
      reserved.insert("diagnostic_time");
    }
    NcVar v = define(what, [&] { return described_var(key, series_dim); });
    series.emplace(key, v);
    return v;
  }

  NcVar described_var(const std::string& key, const NcDim& dim) {
    NcVar v = root.addVar(key, NC_DOUBLE, dim);
    const auto known = key == kStepInfo.name ? &kStepInfo : described.count(key) ? &described.at(key) : nullptr;
    std::string long_name = key;
    if (known) {
      long_name = known->long_name;
    } else {
      std::replace(long_name.begin(), long_name.end(), '_', ' ');
    }
    // Records written before this key first appeared read as missing.
    v.setFill(NC_FILL_DOUBLE);
    if (parallel_file) collective(v);
    v.putAtt("long_name", long_name);
    put_units(v, known ? known->units.c_str() : "1");
    if (known && !known->panel.empty()) v.putAtt("plot_panel", known->panel);
    return v;
  }

  void define_header(const Case& c);
  // A file every rank writes: a variable's writes are collective (HDF5 writes filtered
  // chunks only so, and a write that extends the time dimension must be).
  void collective(const NcVar& v) {
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
    nc::check(nc_var_par_access(ncid, v.getId(), NC_COLLECTIVE), "parallel access to " + v.getName());
#else
    (void)v;
#endif
  }
  void all_collective() {
    int nvars = 0;
    nc::check(nc_inq_nvars(ncid, &nvars), "variables");
    for (int v = 0; v < nvars; ++v) collective(NcVar(ncid, v));
  }
  // What share() tells the other ranks: the variables' names by kind, one "KIND NAME" a line.
  std::string manifest() const;
  // After share() opened the file: the handles of the variables the manifest names.
  void attach(const std::string& manifest);
  // After share(): every rank's flush journal (or none on any rank, with a warning).
  void start_shared_journal();
  // The stream's fields, then its profiles: the variables of a record.
  std::vector<std::string> record_fields() const {
    std::vector<std::string> all = required_fields;
    all.insert(all.end(), profiles.begin(), profiles.end());
    return all;
  }
  template <class Refuse>
  void check_same_output(int in, Refuse&& refuse);
  // Copies the listed records (`with_fields`: their fields, moments and profiles too, else
  // only the one-dimensional variables and time bounds, the rest having been written already).
  void copy_selected(int in, const std::string& old_path, const std::vector<long>& records,
                     const std::vector<long>& series_records, bool with_fields = true);
  void set_compression(const NcVar& v);
};

NetcdfWriter::NetcdfWriter(const std::string& path, const Case& c)
    : NetcdfWriter(path, c, c.output.streams.empty() ? OutputStream{} : c.output.streams.front()) {}

NetcdfWriter::NetcdfWriter(const std::string& path, const Case& c, const OutputStream& stream)
    : NetcdfWriter(path, c, stream, Creation::alone) {}

NetcdfWriter::NetcdfWriter(const std::string& path, const Case& c, const OutputStream& stream, Creation creation,
                           std::array<int, 2> block)
    : NetcdfWriter(Joining{}, path, c, stream) {
  Impl& m = *impl_;
  m.chunk_block = block;
  if (path.empty()) m.fail("empty file name");

  // Check the configuration before touching the disk.
  for (int a = 0; a < 3; ++a) {
    if (c.n[a] < 1)
      m.fail(std::string("cell count along ") + axis_name(a) + " is " + std::to_string(c.n[a]) +
             ", expected at least 1");
  }
  for (const auto& f : stream.fields) {
    const FieldInfo* known = find_field(f);
    if (!known || !known->output) m.fail("unknown output field '" + f + "' (expected T, u, v, w, p, u_c, v_c or w_c)");
    if (std::count(stream.fields.begin(), stream.fields.end(), f) > 1) m.fail("output field '" + f + "' listed twice");
  }
  for (const auto& f : stream.profiles) {
    if (!find_profile(f)) m.fail("unknown profile '" + f + "'");
    if (std::count(stream.profiles.begin(), stream.profiles.end(), f) > 1) m.fail("profile '" + f + "' listed twice");
  }
  const std::vector<std::string>& moments = stream.average.moments;
  if (!stream.average.enabled && !moments.empty()) m.fail("moments given for a stream that is not averaged");
  if (stream.average.enabled && stream.average.every_steps < 1)
    m.fail("averaging every " + std::to_string(stream.average.every_steps) + " steps: expected at least 1");
  for (const auto& mo : moments) {
    if (std::count(moment_names().begin(), moment_names().end(), mo) == 0)
      m.fail("unknown moment '" + mo + "' (expected a*b with a and b among T, u_c, v_c, w_c and p)");
    if (std::count(moments.begin(), moments.end(), mo) > 1) m.fail("moment '" + mo + "' listed twice");
  }
  if (stream.fields.empty() && stream.profiles.empty() && moments.empty())
    m.fail("a stream with neither fields nor profiles");
  for (int a = 0; a < 3; ++a) {
    const bool cut = stream.region.axis == a;
    if (cut && (stream.region.index < 0 || stream.region.index >= c.n[a]))
      m.fail(std::string("plane index along ") + axis_name(a) + " outside the grid");
    m.box_lo[a] = cut ? stream.region.index : 0;
    m.box_n[a] = cut ? 1 : c.n[a];
  }

  try {
    m.target = output_target(path);
  } catch (const std::runtime_error& e) {
    m.fail(e.what());
  }
  m.partial = bouss::partial_path(m.target);  // for the room check; the claimed name follows
  m.ensure_room(kHeaderBytes + 2 * c.json_text.size(), 0, "cannot create " + m.partial);
  try {
    m.partial = claim_partial_file(m.target);
  } catch (const std::runtime_error& e) {
    m.fail(e.what());
  }

  // From here on a failure removes the partial file this writer created (and nothing else).
  try {
    m.run("cannot create " + m.partial, [&] {
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
      // Made by parallel HDF5 (on this rank alone), so that the ranks can write it together
      // later: HDF5 refuses a parallel write to a chunked variable a serial HDF5 made.
      m.parallel_file = creation == Creation::shared_later;
      if (m.parallel_file)
        return nc_create_par(m.partial.c_str(), NC_NETCDF4 | NC_CLOBBER, MPI_COMM_SELF, MPI_INFO_NULL, &m.ncid);
#endif
      return nc_create(m.partial.c_str(), NC_NETCDF4 | NC_CLOBBER, &m.ncid);
    });
    m.start_journal();
    m.root = NcGroup(m.ncid);
    m.define("cannot set up " + m.partial, [&] {
      m.define_header(c);
      if (m.parallel_file) m.all_collective();
      return 0;
    });
    m.sync("cannot set up " + m.partial);
    m.check_journal();
  } catch (...) {
    m.abandon_handle();  // nc_failed did; a handle that failed to set up is never closed
    m.journal.reset();
    std::remove(m.partial.c_str());
    throw;
  }
  m.set_up = true;
}

NetcdfWriter::NetcdfWriter(Joining, const std::string& path, const Case& c, const OutputStream& stream)
    : impl_(std::make_unique<Impl>()), path_(path) {
  Impl& m = *impl_;
  m.path = path;
  m.units = c.physics.units;
  m.stream = stream;
  m.single = stream.precision == Precision::single_precision;
  m.averaged = stream.average.enabled;
  m.records = &records_;
  m.series_records = &series_records_;
}

std::string NetcdfWriter::Impl::manifest() const {
  std::string out;
  const auto add = [&](char kind, const std::string& name) { out += std::string(1, kind) + " " + name + "\n"; };
  for (const auto& f : required_fields) add('F', f);
  for (const auto& f : moments) add('M', f);
  for (const auto& f : profiles) add('P', f);
  for (const auto& kv : scalars) add('S', kv.first);
  for (const auto& kv : series) add('D', kv.first);
  for (const auto& r : reserved) add('R', r);
  return out;
}

void NetcdfWriter::Impl::attach(const std::string& text) {
  root = NcGroup(ncid);
  time_dim = root.getDim("time");
  time_var = root.getVar("time");
  profile_dim = root.getDim("profile_time");
  profile_time = root.getVar("profile_time");
  time_bnds = averaged ? root.getVar("time_bnds") : NcVar();
  profile_time_bnds = averaged ? root.getVar("profile_time_bnds") : NcVar();
  series_dim = root.getDim("diagnostic_time");
  series_time = root.getVar("diagnostic_time");
  fields.clear(), scalars.clear(), series.clear(), reserved.clear();
  required_fields.clear(), moments.clear(), profiles.clear();
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() < 3) continue;
    const char kind = line[0];
    const std::string name = line.substr(2);
    const NcVar v = root.getVar(name);
    if (kind != 'R' && v.isNull()) fail("share: no variable " + name + " in " + partial);
    if (kind == 'F' || kind == 'P') {
      const std::vector<NcDim> d = v.getDims();
      if (kind == 'P') fields.emplace(name, Field{v, {1, 1, d.at(1).getSize()}, true});
      else fields.emplace(name, Field{v, {d.at(3).getSize(), d.at(2).getSize(), d.at(1).getSize()}});
      // No chunk cache for the fields (define_header says why; a reopened file has the default).
      if (kind == 'F') nc::check(nc_set_var_chunk_cache(ncid, v.getId(), 0, 0, 0.75f), "chunk cache of " + name);
      (kind == 'P' ? profiles : required_fields).push_back(name);
    }
    if (kind == 'M') moments.push_back(name);
    if (kind == 'S') scalars.emplace(name, v);
    if (kind == 'D') series.emplace(name, v);
    if (kind == 'R') reserved.insert(name);
  }
}

void NetcdfWriter::Impl::start_shared_journal() {
  std::string problem;
  try {
    journal = std::make_unique<FlushJournal>(partial, descriptors_of(partial), lead());
  } catch (const std::runtime_error& e) {
    problem = e.what();
  }
  problem = first_failure(*ranks, !problem.empty(), problem);
  if (problem.empty()) return;
  journal.reset();
  if (lead())
    spdlog::warn("{}: no flush journal ({}): a kill while HDF5 flushes the file can damage records flushed "
                 "before (docs/output.md, \"Kills\")", partial, problem);
}

void NetcdfWriter::share(const Communicator& ranks) {
  Impl& m = *impl_;
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
  if (!ranks_write_one_file(ranks)) m.fail("share: this build or MPI cannot write one file from every rank");
  const std::string what = "cannot share " + (m.partial.empty() ? path_ : m.partial) + " among the ranks";
  // Rank 0: its file flushed, committed and closed.
  std::string problem, manifest;
  std::array<long, 2> counts{records_, series_records_};
  if (ranks.rank() == 0) {
    try {
      m.require_writable("share");
      m.sync(what);
      m.writeback.reset();
      const int ncid = m.ncid;
      m.run(what, [&] { return nc_close(ncid); });
      m.ncid = -1;
      m.commit(what);
      m.journal.reset();
      manifest = m.manifest();
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  problem = first_failure(ranks, !problem.empty(), problem);
  if (!problem.empty()) {
    m.failed = true;
    throw std::runtime_error(problem);
  }
  const auto broadcast_text = [&](std::string& t) {
    std::size_t n = t.size();
    ranks.broadcast(&n, sizeof n, 0);
    t.resize(n);
    ranks.broadcast(t.data(), n, 0);
  };
  broadcast_text(m.partial);
  broadcast_text(manifest);
  ranks.broadcast(counts.data(), sizeof counts, 0);
  records_ = counts[0];
  series_records_ = counts[1];
  m.ranks = &ranks;
  // Every rank: the file opened for parallel writes.
  errno = 0;
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(ranks.mpi_comm());
  const int status = nc_open_par(m.partial.c_str(), NC_WRITE, comm, MPI_INFO_NULL, &m.ncid);
  if (status != NC_NOERR) {
    problem = "cannot open " + m.partial + " on " + ranks.describe() + ": " + nc_reason(status, errno);
    m.ncid = -1;
  }
  problem = first_failure(ranks, !problem.empty(), problem);
  if (!problem.empty()) {
    if (m.ncid >= 0) nc_close(m.ncid);
    m.ncid = -1;
    m.failed = true;
    m.fail(problem);
  }
  m.define(what, [&] {
    m.attach(manifest);
    m.parallel_file = true;
    m.all_collective();
    return 0;
  });
  hdf5_metadata_from_rank_0(m.partial);
  m.start_shared_journal();
  // MPI-IO's fsync at each flush waited for the record to reach the disk, while nothing was
  // written; now it starts the writeback, and close() makes the file durable on every rank.
  m.writeback = std::make_unique<Writeback>(m.partial);
  m.writeback->defer_syncs(descriptors_of(m.partial));
  m.set_up = true;
#else
  (void)ranks;
  m.fail("share: this build has no parallel NetCDF");
#endif
}

void NetcdfWriter::write_block(const std::string& field, const std::array<std::size_t, 3>& start,
                               const std::array<std::size_t, 3>& count, const void* values) {
  Impl& m = *impl_;
  const Impl::Field& f = m.record_field("write_block", field);
  for (int a = 0; a < 3; ++a)
    if (start[a] + count[a] > f.n[a])
      m.fail("field '" + field + "': a block beyond the record along " + axis_name(a));
  const size_t rec = static_cast<size_t>(m.open_record);
  const std::vector<size_t> from{rec, start[2], start[1], start[0]}, n{1, count[2], count[1], count[0]};
  const std::string what = "cannot write snapshot " + std::to_string(rec) + " (" + field + ") to " + m.partial;
  m.run(what, [&] { return nc_put_vara(m.ncid, f.var.getId(), from.data(), n.data(), values); });
}

void NetcdfWriter::Impl::define_header(const Case& c) {
  const bool dim = dimensional();
  NcGroup& f = root;

  // Global attributes.
  f.putAtt("Conventions", "CF-1.8");
  f.putAtt("title", c.name);
  if (!c.description.empty()) f.putAtt("comment", c.description);
  f.putAtt("source", source_string());
  f.putAtt("bouss_build", build_provenance());
  f.putAtt("history", utc_now_iso8601() + ": created by " + source_string() + " from " +
                          (c.source.empty() ? std::string("(unnamed case)") : c.source));
  f.putAtt("case_file", c.source);
  // The run that writes it and its continuations (io/run_identity.hpp).
  if (!c.run_id.empty()) f.putAtt(output_run_id_attribute, c.run_id);
  // The ranks that wrote it and their process grid (x by y): one file whatever the count.
  f.putAtt("mpi_ranks", NC_INT, c.ranks);
  f.putAtt("decomposition", c.ranks > 1 ? std::to_string(c.decomposition[0]) + "x" + std::to_string(c.decomposition[1])
                                        : std::string("1x1"));
  f.putAtt("case_json", c.json_text);
  if (const auto& from = c.initial.from) {  // the state the run started from (initial.from)
    f.putAtt("initial_from", from->path);
    f.putAtt("initial_record", NC_INT64, static_cast<long long>(from->source_record));
    f.putAtt("initial_time", NC_DOUBLE, from->source_time);
  }
  f.putAtt("units_system", units_system_name(c.physics.units));
  f.putAtt("nu", NC_DOUBLE, c.physics.nu);
  f.putAtt("kappa", NC_DOUBLE, c.physics.kappa);
  f.putAtt("buoyancy", NC_DOUBLE, c.physics.buoyancy);
  f.putAtt("reference_temperature", NC_DOUBLE, c.physics.reference_temperature);
  const ReferenceProfile reference = reference_profile(c);
  f.putAtt("reference_temperature_gradient", NC_DOUBLE, reference.gradient);
  f.putAtt("reference_height", NC_DOUBLE, reference.height);
  // The temperatures the boundaries and the initial state hold T between (config/units.hpp).
  const std::array<double, 2> range = temperature_range(c);
  f.putAtt("temperature_range", NC_DOUBLE, 2, range.data());
  if (c.physics.rayleigh) f.putAtt("rayleigh", NC_DOUBLE, *c.physics.rayleigh);
  if (c.physics.prandtl) f.putAtt("prandtl", NC_DOUBLE, *c.physics.prandtl);
  if (c.physics.grashof) f.putAtt("grashof", NC_DOUBLE, *c.physics.grashof);
  if (c.physics.reynolds) f.putAtt("reynolds", NC_DOUBLE, *c.physics.reynolds);
  if (c.physics.schmidt) f.putAtt("schmidt", NC_DOUBLE, *c.physics.schmidt);
  if (c.physics.reduced_gravity) f.putAtt("reduced_gravity", NC_DOUBLE, *c.physics.reduced_gravity);

  if (!stream.region.whole()) {
    const std::string a = axis_name(stream.region.axis);
    char at[64];
    std::snprintf(at, sizeof at, "%.17g", stream.region.coordinate);
    f.putAtt("region", "the plane of cells at " + a + " = " + at + " (cell " + std::to_string(stream.region.index) +
                           " along " + a + ")");
  }
  if (averaged) {
    const int every = stream.average.every_steps;
    f.putAtt("averaging", "time means over each record's interval [time_bnds], trapezoidal in time, sampled " +
                              (every == 1 ? std::string("every step") : "every " + std::to_string(every) + " steps") +
                              " on the device");
  }

  // Dimensions: the cells of the region (the whole grid, or one cell across a plane).
  std::array<NcDim, 3> centre_dim, face_dim;
  for (int a = 0; a < 3; ++a) {
    centre_dim[a] = f.addDim(axis_name(a), static_cast<size_t>(box_n[a]));
    reserved.insert(axis_name(a));
  }
  for (int a = 0; a < 3; ++a) {
    face_dim[a] = f.addDim(std::string(axis_name(a)) + "f", static_cast<size_t>(box_n[a]) + 1);
    reserved.insert(std::string(axis_name(a)) + "f");
  }

  // Record coordinates: time for the snapshot fields, profile_time for the profiles (both
  // written at every record of the stream).
  auto record_coordinate = [&](const char* name, const char* long_name, NcDim& d, NcVar& v) {
    d = f.addDim(name);  // unlimited
    v = f.addVar(name, NC_DOUBLE, d);
    v.putAtt("long_name", long_name);
    if (dim) v.putAtt("standard_name", "time");
    v.putAtt("axis", "T");
    put_units(v, "s");
    reserved.insert(name);
  };
  if (!stream.fields.empty() || !stream.average.moments.empty()) record_coordinate("time", "time", time_dim, time_var);
  if (!stream.profiles.empty()) record_coordinate("profile_time", "time", profile_dim, profile_time);

  // Spatial coordinates: centres and faces, and the cell bounds of the centres (CF 7.1),
  // x_bnds(x, nv) = the two faces of each cell.
  static const char* std_names[3] = {"projection_x_coordinate", "projection_y_coordinate", "height"};
  std::array<NcVar, 3> centre_var, face_var, bounds_var;
  const NcDim nv_dim = f.addDim("nv", 2);
  reserved.insert("nv");
  for (int a = 0; a < 3; ++a) centre_var[a] = f.addVar(axis_name(a), NC_DOUBLE, centre_dim[a]);
  for (int a = 0; a < 3; ++a) face_var[a] = f.addVar(std::string(axis_name(a)) + "f", NC_DOUBLE, face_dim[a]);
  for (int a = 0; a < 3; ++a) {
    const std::string bounds = std::string(axis_name(a)) + "_bnds";
    bounds_var[a] = f.addVar(bounds, NC_DOUBLE, std::vector<NcDim>{centre_dim[a], nv_dim});
    reserved.insert(bounds);
  }
  for (int a = 0; a < 3; ++a) {
    const std::string an = axis_name(a);
    for (int s = 0; s < 2; ++s) {
      NcVar& v = s == 0 ? centre_var[a] : face_var[a];
      v.putAtt("long_name", an + (s == 0 ? " (cell centre)" : " (cell face)"));
      // CF ties standard names to canonical units, so they go only with SI lengths.
      if (dim) v.putAtt("standard_name", std_names[a]);
      put_units(v, "m");
      // No axis = "X"/"Y": CF allows them, but ParaView's NetCDF reader takes X and Y for
      // longitude and latitude and draws the box as a thin spherical shell (docs/output.md).
      // Z means vertical to it, as it does to CF.
      if (a == 2) v.putAtt("axis", "Z");
      if (a == 2) v.putAtt("positive", "up");
      if (s == 0) v.putAtt("bounds", an + "_bnds");
      if (s == 1) v.putAtt("c_grid_axis_shift", NC_DOUBLE, -0.5);
    }
  }

  // An averaged stream's records: the interval each one's means are over (CF 7.1), on the
  // record dimension and nv like x_bnds.
  if (averaged) {
    auto time_bounds = [&](const NcDim& d, NcVar& coordinate, const std::string& name) {
      NcVar b = f.addVar(name, NC_DOUBLE, std::vector<NcDim>{d, nv_dim});
      coordinate.putAtt("bounds", name);
      reserved.insert(name);
      return b;
    };
    if (!time_dim.isNull()) time_bnds = time_bounds(time_dim, time_var, "time_bnds");
    if (!profile_dim.isNull()) profile_time_bnds = time_bounds(profile_dim, profile_time, "profile_time_bnds");
  }

  // Data variables on the grid (a field, or a moment's covariance), one time record per
  // chunk (or slabs of at most ~4 MiB); `cell_methods` only where not empty.
  auto grid_variable = [&](const std::string& name, Stagger stagger, const std::string& long_name,
                           const std::string& units, const std::string& cell_methods) {
    std::array<size_t, 3> n;
    std::vector<NcDim> dims{time_dim};
    for (int a = 2; a >= 0; --a) {
      const bool faces = staggered_along(stagger, a);
      n[a] = static_cast<size_t>(box_n[a]) + (faces ? 1 : 0);
      dims.push_back(faces ? face_dim[a] : centre_dim[a]);
    }
    NcVar v = single ? f.addVar(name, NC_FLOAT, dims) : f.addVar(name, NC_DOUBLE, dims);
    const size_t row = field_bytes() * n[0], plane = row * n[1];
    std::vector<size_t> chunk{1, output_chunk_planes(plane, n[2]), n[1], n[0]};
    if (plane > kMaxChunkBytes) chunk[2] = std::max<size_t>(1, kMaxChunkBytes / row);
    // A file the ranks write together: each rank's block of a slab is whole chunks (measured
    // with 4 ranks writing 1024 x 1024 planes of floats into the page cache: 0.87-1.34 GB/s
    // against 0.34-0.93 GB/s with whole planes, where every chunk took pieces of 4 ranks).
    if (chunk_block[0] > 0) chunk[3] = std::min(chunk[3], size_t(chunk_block[0]));
    if (chunk_block[1] > 0) chunk[2] = std::min(chunk[2], size_t(chunk_block[1]));
    v.setChunking(chunk);
    v.putAtt("long_name", long_name);
    put_units(v, units.c_str());
    v.putAtt("grid_location", grid_location(stagger));
    if (!cell_methods.empty()) v.putAtt("cell_methods", cell_methods);
    // No chunk cache for the fields: records go in slabs of whole chunks, which HDF5 then
    // writes straight from the caller's buffer. With its default cache it copied each chunk
    // through the cache first: 0.65 against 1.73 GB/s into the page cache, measured on
    // 4 MiB chunks of a 256x256x128 field.
    if (const int status = nc_set_var_chunk_cache(ncid, v.getId(), 0, 0, 0.75f); status != NC_NOERR)
      nc_failed(status, errno, "cannot set up " + partial);
    set_compression(v);
    fields.emplace(name, Field{v, n});
    required_fields.push_back(name);
    reserved.insert(name);
  };
  for (const auto& name : stream.fields) {
    const FieldInfo& spec = field_named(name);
    grid_variable(name, spec.stagger, spec.long_name, spec.units, averaged ? "time: mean" : "");
  }
  // The moments of an averaged stream: <a b> - <a> <b> over each record's interval, on the
  // cell centres (the factors are centred fields).
  for (const auto& moment : stream.average.moments) {
    const auto [a, b] = moment_factors(moment);
    const std::string name = moment_variable(moment);
    if (reserved.count(name)) fail("moment '" + moment + "': its variable " + name + " is written already");
    grid_variable(name, Stagger::centre,
                  a == b ? "variance of " + a + " over each record's interval"
                         : "covariance of " + a + " and " + b + " over each record's interval",
                  std::string(field_named(a).units) + " " + field_named(b).units,
                  a == b ? "time: variance"
                         : "time: mean (comment: the mean of the product of the two fluctuations about their "
                           "means over the interval)");
    moments.push_back(name);
  }
  // Profiles: double, one record per chunk.
  for (const auto& name : stream.profiles) {
    const ProfileInfo& spec = profile_named(name);
    const NcDim& zd = spec.stagger == Stagger::face_z ? face_dim[2] : centre_dim[2];
    NcVar v = f.addVar(name, NC_DOUBLE, std::vector<NcDim>{profile_dim, zd});
    std::vector<size_t> chunk{1, zd.getSize()};
    v.setChunking(chunk);
    v.putAtt("long_name", spec.long_name);
    put_units(v, spec.units);
    v.putAtt("grid_location", grid_location(spec.stagger));
    v.putAtt("cell_methods", averaged ? averaged_profile_cell_methods(name) : "x: y: mean");
    set_compression(v);
    fields.emplace(name, Field{v, {1, 1, zd.getSize()}, true});
    profiles.push_back(name);
    reserved.insert(name);
  }

  // Coordinate values (leaves define mode implicitly): those of the region's cells.
  for (int a = 0; a < 3; ++a) {
    const int na = box_n[a], i0 = box_lo[a];
    std::vector<double> xc(na), xf(na + 1);
    for (int i = 0; i <= na; ++i) xf[i] = c.face(a, i0 + i);
    for (int i = 0; i < na; ++i) xc[i] = c.centre(a, i0 + i);
    std::vector<double> bounds(2 * na);
    for (int i = 0; i < na; ++i) {
      bounds[2 * i] = xf[i];
      bounds[2 * i + 1] = xf[i + 1];
    }
    centre_var[a].putVar(xc.data());
    face_var[a].putVar(xf.data());
    bounds_var[a].putVar(bounds.data());
  }
}

// Deflate with shuffle and, optionally, quantization (output.compression); none by default.
void NetcdfWriter::Impl::set_compression(const NcVar& v) {
  const OutputCompression& z = stream.compression;
  if (!z.enabled()) return;
  if (const int status = nc_def_var_deflate(ncid, v.getId(), z.shuffle ? 1 : 0, 1, z.deflate); status != NC_NOERR)
    nc_failed(status, errno, "cannot set up compression in " + partial);
  if (z.significant_digits)
    if (const int status = nc_def_var_quantize(ncid, v.getId(), NC_QUANTIZE_GRANULARBR, *z.significant_digits);
        status != NC_NOERR)
      nc_failed(status, errno, "cannot set up quantization in " + partial);
}

NetcdfWriter::~NetcdfWriter() = default;

std::size_t output_chunk_planes(std::size_t plane_bytes, std::size_t planes) {
  if (plane_bytes * planes <= kMaxChunkBytes) return planes;
  return std::max<std::size_t>(1, kMaxChunkBytes / std::max<std::size_t>(1, plane_bytes));
}

const std::string& NetcdfWriter::partial_path() const { return impl_->partial; }

bool NetcdfWriter::closed() const { return impl_->closed; }

void NetcdfWriter::begin_record(double time, const std::map<std::string, double>& scalars,
                                std::optional<TimeBounds> bounds) {
  Impl& m = *impl_;
  m.require_writable("begin_record");
  if (m.open_record >= 0) m.fail("begin_record: record " + std::to_string(m.open_record) + " is not ended");
  if (m.averaged && !bounds)
    m.fail("begin_record: record " + std::to_string(records_) +
           " of an averaged stream without its interval's bounds [start, end]");
  if (!m.averaged && bounds)
    m.fail("begin_record: bounds given for record " + std::to_string(records_) +
           " of a stream of snapshots (only an averaged stream's records have an interval)");
  if (bounds && !((*bounds)[0] <= (*bounds)[1]))
    m.fail("begin_record: record " + std::to_string(records_) + "'s interval [" + std::to_string((*bounds)[0]) +
           ", " + std::to_string((*bounds)[1]) + "] ends before it starts");
  std::uintmax_t bytes = sizeof(double) * (2 + (bounds ? 4 : 0) + scalars.size());
  for (const auto& [name, f] : m.fields) bytes += (f.profile ? sizeof(double) : m.field_bytes()) * f.values();
  std::uintmax_t new_variables = 0;
  for (const auto& kv : scalars) {
    if (m.reserved.count(kv.first))
      m.fail("scalar '" + kv.first + "' has the name of a dimension, coordinate or field variable");
    new_variables += m.scalars.count(kv.first) == 0;
  }
  const size_t rec = static_cast<size_t>(records_);
  const std::string what = "cannot write snapshot " + std::to_string(records_) + " to " + m.partial;
  // The room for the whole record is checked before any of it is written.
  m.ensure_room(bytes, new_variables + m.fields.size(), what);
  if (m.journal && records_ == m.kill_record) m.journal->kill_at_write(m.kill_write, m.kill_in_commit);
  std::vector<std::pair<NcVar, double>> svars;
  if (!m.required_fields.empty())
    for (const auto& kv : scalars) svars.emplace_back(m.scalar_var(kv.first, what), kv.second);
  const std::vector<size_t> at{rec}, one{1};
  if (!m.required_fields.empty()) m.put(m.time_var, at, one, &time, what);
  if (!m.profiles.empty()) m.put(m.profile_time, at, one, &time, what);
  if (bounds) {
    const std::vector<size_t> from{rec, 0}, both{1, 2};
    if (!m.time_bnds.isNull()) m.put(m.time_bnds, from, both, bounds->data(), what);
    if (!m.profile_time_bnds.isNull()) m.put(m.profile_time_bnds, from, both, bounds->data(), what);
  }
  for (const auto& sv : svars) m.put(sv.first, at, one, &sv.second, what);
  m.open_record = records_;
}

void NetcdfWriter::write_slab(const std::string& field, int k0, int nk, const void* values) {
  Impl& m = *impl_;
  const Impl::Field& f = m.record_field("write_slab", field);
  if (k0 < 0 || nk < 0 || size_t(k0 + nk) > f.n[2])
    m.fail("field '" + field + "': planes [" + std::to_string(k0) + ", " + std::to_string(k0 + nk) + ") outside 0.." +
           std::to_string(f.n[2]));
  const size_t rec = static_cast<size_t>(m.open_record);
  m.put_raw(f.var, {rec, size_t(k0), 0, 0}, {1, size_t(nk), f.n[1], f.n[0]}, values,
            "cannot write snapshot " + std::to_string(rec) + " (" + field + ") to " + m.partial);
  m.start_writeback();  // after every slab: little dirty data piles up (see start_writeback)
}

void NetcdfWriter::write_profiles(const double* values) {
  Impl& m = *impl_;
  m.require_writable("write_profiles");
  if (m.open_record < 0) m.fail("write_profiles: no record begun");
  const size_t rec = static_cast<size_t>(m.open_record);
  for (const std::string& name : m.profiles) {
    const Impl::Field& f = m.fields.at(name);
    m.put(f.var, f.start(rec, 0), f.count(f.n[2]), values,
          "cannot write profiles " + std::to_string(rec) + " (" + name + ") to " + m.partial);
    values += f.n[2];
  }
}

void NetcdfWriter::end_record() {
  Impl& m = *impl_;
  m.require_writable("end_record");
  if (m.open_record < 0) m.fail("end_record: no record begun");
  m.sync("cannot write snapshot " + std::to_string(m.open_record) + " to " + m.partial);
  m.start_writeback();
  m.open_record = -1;
  ++records_;
}

void NetcdfWriter::flush_to_disk() {
  Impl& m = *impl_;
  m.require_writable("flush_to_disk");
  m.sync("cannot flush " + m.partial);
  m.fsync_everywhere("cannot flush " + m.partial);
}

void NetcdfWriter::write(double time, const std::vector<SnapshotField>& fields,
                         const std::map<std::string, double>& scalars, std::optional<TimeBounds> bounds) {
  Impl& m = *impl_;
  m.require_writable("write");
  if (!m.profiles.empty()) m.fail("write: this stream has profiles; write its records with begin_record");
  // Validate everything first so that a bad call leaves no half-written record.
  std::set<std::string> given;
  for (const auto& sf : fields) {
    auto it = m.fields.find(sf.name);
    if (it == m.fields.end()) {
      std::string list;
      for (const auto& r : m.required_fields) list += (list.empty() ? "" : ", ") + r;
      m.fail("field '" + sf.name + "' is not among the output fields (" + list + ")");
    }
    if (!given.insert(sf.name).second) m.fail("field '" + sf.name + "' given twice");
    const auto& n = it->second.n;
    const size_t expect = n[0] * n[1] * n[2];
    if (sf.values.size() != expect) {
      std::ostringstream os;
      os << "field '" << sf.name << "' has " << sf.values.size() << " values, expected " << expect << " ("
         << n[0] << " x " << n[1] << " x " << n[2] << ")";
      m.fail(os.str());
    }
  }
  for (const auto& r : m.required_fields)
    if (!given.count(r)) m.fail("field '" + r + "' missing from record " + std::to_string(records_));
  begin_record(time, scalars, bounds);
  for (const auto& sf : fields) {
    const int nz = int(m.fields.at(sf.name).n[2]);
    if (m.single) {
      const std::vector<float> narrow(sf.values.begin(), sf.values.end());
      write_slab(sf.name, 0, nz, narrow.data());
    } else {
      write_slab(sf.name, 0, nz, sf.values.data());
    }
  }
  end_record();
}

void NetcdfWriter::describe_diagnostics(const std::vector<DiagnosticInfo>& info) {
  for (const DiagnosticInfo& d : info) {
    if (!impl_->described.count(d.name)) impl_->described_order.push_back(d.name);
    impl_->described[d.name] = d;
  }
}

void NetcdfWriter::write_series(double time, const std::map<std::string, double>& values) {
  Impl& m = *impl_;
  m.require_writable("write_series");
  if (values.empty()) return;
  const std::string what = "cannot write diagnostics record " + std::to_string(series_records_) + " to " + m.partial;
  std::uintmax_t new_variables = 0;
  for (const auto& kv : values) new_variables += m.series.count(kv.first) == 0;
  m.ensure_room(sizeof(double) * (1 + values.size()), new_variables + 1, what);
  // New variables in the order their diagnostics were described (the flow's table, then the
  // case's physics): the order readers list them and bouss plot draws its default panels in.
  for (const std::string& name : m.described_order)
    if (values.count(name)) m.series_var(name, what);
  std::vector<std::pair<NcVar, double>> vars;
  for (const auto& kv : values) vars.emplace_back(m.series_var(kv.first, what), kv.second);
  const std::vector<size_t> at{static_cast<size_t>(series_records_)}, one{1};
  m.put(m.series_time, at, one, &time, what);
  for (const auto& v : vars) m.put(v.first, at, one, &v.second, what);
  m.sync(what);
  ++series_records_;
}

namespace {

// The variables of an open file: name, dimension names, type.
struct VarInfo {
  std::string name;
  std::vector<std::string> dims;
  nc_type type = NC_NAT;
};

std::vector<VarInfo> list_variables(int ncid) {
  int nvars = 0;
  nc_inq_nvars(ncid, &nvars);
  std::vector<VarInfo> out;
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    int ndims = 0;
    int dimids[NC_MAX_VAR_DIMS];
    VarInfo info;
    if (nc_inq_var(ncid, v, name, &info.type, &ndims, dimids, nullptr) != NC_NOERR) continue;
    info.name = name;
    for (int d = 0; d < ndims; ++d) {
      char dn[NC_MAX_NAME + 1] = {};
      nc_inq_dimname(ncid, dimids[d], dn);
      info.dims.push_back(dn);
    }
    out.push_back(std::move(info));
  }
  return out;
}

// Length of a dimension, or -1 when the file has none of that name.
long dim_length(int ncid, const char* name) {
  int id = -1;
  size_t len = 0;
  if (nc_inq_dimid(ncid, name, &id) != NC_NOERR || nc_inq_dimlen(ncid, id, &len) != NC_NOERR) return -1;
  return static_cast<long>(len);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

// The bounds variables of the record coordinates time and profile_time (an averaged
// stream's time_bnds, profile_time_bnds): those their `bounds` attributes name.
std::set<std::string> record_bounds(int ncid) {
  std::set<std::string> out;
  for (const char* coordinate : {"time", "profile_time"}) {
    int id = -1;
    if (nc_inq_varid(ncid, coordinate, &id) != NC_NOERR) continue;
    const std::string bounds = text_attribute(ncid, id, "bounds");
    if (!bounds.empty()) out.insert(bounds);
  }
  return out;
}

bool is_moment_variable(const std::string& name) {
  for (const std::string& m : moment_names())
    if (moment_variable(m) == name) return true;
  return false;
}

}  // namespace

// Whether the earlier file `in` (at old_path) holds the output of this writer's run: its
// grid, coordinates, units, output fields and precision. refuse(why) throws.
template <class Refuse>
void NetcdfWriter::Impl::check_same_output(int in, Refuse&& refuse) {
  const long n_old[3] = {dim_length(in, "x"), dim_length(in, "y"), dim_length(in, "z")};
  long n_new[3];
  for (int a = 0; a < 3; ++a) n_new[a] = dim_length(ncid, axis_name(a));
  if (n_old[0] < 0 || n_old[1] < 0 || n_old[2] < 0 || (dim_length(in, "time") < 0 && dim_length(in, "profile_time") < 0))
    refuse("it is not a bouss output file (it has no time, x, y and z dimensions)");
  if (!std::equal(n_old, n_old + 3, n_new))
    refuse("its grid is " + std::to_string(n_old[0]) + " x " + std::to_string(n_old[1]) + " x " +
           std::to_string(n_old[2]) + " cells, this run's is " + std::to_string(n_new[0]) + " x " +
           std::to_string(n_new[1]) + " x " + std::to_string(n_new[2]));
  for (const char* coord : {"x", "y", "z", "xf", "yf", "zf"}) {
    const long len = dim_length(ncid, coord);
    std::vector<double> a(len), b(len);
    int vo = -1, vn = -1;
    if (nc_inq_varid(in, coord, &vo) != NC_NOERR || dim_length(in, coord) != len ||
        nc_get_var_double(in, vo, a.data()) != NC_NOERR)
      refuse(std::string("its coordinate ") + coord + " is missing or unreadable");
    nc_inq_varid(ncid, coord, &vn);
    run("cannot read back " + partial, [&] { return nc_get_var_double(ncid, vn, b.data()); });
    if (std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) != 0)
      refuse(std::string("its coordinate ") + coord + " differs from this run's");
  }
  const std::string old_units = text_attribute(in, NC_GLOBAL, "units_system");
  if (old_units != units_system_name(units))
    refuse("its units_system is '" + old_units + "', this run's is '" + units_system_name(units) + "'");

  // Time averages and snapshots do not continue each other.
  const std::set<std::string> old_bounds = record_bounds(in);
  const bool old_averaged = !old_bounds.empty();
  if (old_averaged != averaged)
    refuse(std::string("it holds ") + (old_averaged ? "time averages" : "snapshots") + ", this run writes " +
           (averaged ? "time averages" : "snapshots") + " (output.average)");

  // Fields and profiles, and apart from them an averaged stream's moments; the bounds
  // variables (time_bnds, on time and nv) are none of them.
  std::vector<std::string> old_fields, old_moments;
  for (const auto& v : list_variables(in)) {
    if (v.dims.empty()) continue;
    const bool bounds = old_bounds.count(v.name) > 0;
    const bool field = v.dims[0] == "time" && v.dims.size() > 1 && !bounds;
    if ((v.dims[0] == "time" || v.dims[0] == "profile_time") && v.dims.size() > 1 && !bounds)
      (field && is_moment_variable(v.name) ? old_moments : old_fields).push_back(v.name);
    const nc_type want = field && single ? NC_FLOAT : NC_DOUBLE;
    if (v.type != want && (v.dims[0] == "time" || v.dims[0] == "diagnostic_time" || v.dims[0] == "profile_time"))
      refuse("its variable " + v.name + " is not " + (want == NC_FLOAT ? "single" : "double") +
             " precision as this run's output.precision asks");
  }
  std::vector<std::string> new_fields, new_moments = moments;
  for (const auto& name : record_fields())
    if (std::find(moments.begin(), moments.end(), name) == moments.end()) new_fields.push_back(name);
  std::sort(old_fields.begin(), old_fields.end());
  std::sort(new_fields.begin(), new_fields.end());
  if (old_fields != new_fields)
    refuse("its output fields are " + join(old_fields) + ", this run writes " + join(new_fields));
  std::sort(old_moments.begin(), old_moments.end());
  std::sort(new_moments.begin(), new_moments.end());
  if (old_moments != new_moments)
    refuse("its moments are " + join(old_moments) + ", this run writes " + join(new_moments) +
           " (output.average.moments)");
}

// Copies the listed records of the earlier file `in`, in their order, to records 0, 1, ...
// of this (new, empty) file: every field, moment and profile, one record of one field at a
// time, the one-dimensional variables on time, profile_time and diagnostic_time, and an
// averaged stream's time bounds.
void NetcdfWriter::Impl::copy_selected(int in, const std::string& old_path, const std::vector<long>& records,
                                       const std::vector<long>& series_records, bool with_fields) {
  std::vector<std::string> old_scalars, old_series;
  for (const auto& v : list_variables(in)) {
    if (v.dims.size() == 1 && v.dims[0] == "time" && v.name != "time") old_scalars.push_back(v.name);
    if (v.dims.size() == 1 && v.dims[0] == "diagnostic_time" && v.name != "diagnostic_time")
      old_series.push_back(v.name);
  }
  const std::string what = "cannot copy records of " + old_path + " to " + partial;
  auto read_error = [&](const std::string& var, int status) {
    fail("cannot read " + var + " from the earlier output " + old_path + ": " + nc_reason(status, errno));
  };

  // Variables that the earlier run created on first use.
  if (!records.empty())
    for (const auto& s : old_scalars) scalar_var(s, what);
  if (!series_records.empty())
    for (const auto& s : old_series) series_var(s, what);

  // Variables on a record dimension alone (`width` 1) or on it and nv (an averaged stream's
  // time bounds, `width` 2): the listed records, read and written in blocks of at most
  // kBlock records (bounded memory); a block that does not read (a damaged file's records
  // beside the listed ones) is read record by record.
  constexpr size_t kBlock = 65536;
  auto copy_rows = [&](const std::string& name, const NcVar& to, const std::vector<long>& list, size_t width) {
    int vid = -1;
    if (nc_inq_varid(in, name.c_str(), &vid) != NC_NOERR) read_error(name, NC_ENOTVAR);
    std::vector<double> block, out;
    size_t block_start = 0, block_n = 0, written = 0;
    auto read_block = [&] {
      const size_t start[2] = {block_start, 0}, count[2] = {block_n, width};
      return nc_get_vara_double(in, vid, start, count, block.data());
    };
    for (size_t i = 0; i < list.size(); ++i) {
      const size_t r = size_t(list[i]);
      if (r < block_start || r >= block_start + block_n) {
        block_start = r;
        block_n = std::min(kBlock, size_t(list.back()) + 1 - r);
        block.resize(block_n * width);
        errno = 0;
        if (read_block() != NC_NOERR) {
          block_n = 1;
          if (const int s = read_block()) read_error(name, s);
        }
      }
      const auto row = block.begin() + std::ptrdiff_t((r - block_start) * width);
      out.insert(out.end(), row, row + std::ptrdiff_t(width));
      if (out.size() == kBlock * width || i + 1 == list.size()) {
        const size_t n = out.size() / width;
        ensure_room(out.size() * sizeof(double), 0, what);
        if (width == 1) put(to, {written}, {n}, out.data(), what);
        else put(to, {written, 0}, {n, width}, out.data(), what);
        written += n;
        out.clear();
      }
    }
  };
  auto copy_1d = [&](const std::string& name, const NcVar& to, const std::vector<long>& list) {
    copy_rows(name, to, list, 1);
  };

  // Snapshots: one slab of one field of one record at a time, the slabs of the fields' own
  // chunks (output_chunk_planes): a restart's copy holds a few MiB, never a whole field.
  std::vector<unsigned char> raw;  // one slab, in the file's type
  for (size_t i = 0; with_fields && i < records.size(); ++i) {
    for (const auto& name : record_fields()) {
      const Field& fld = fields.at(name);
      int vid = -1;
      nc_inq_varid(in, name.c_str(), &vid);
      const size_t elem = fld.profile ? sizeof(double) : field_bytes(), plane = fld.n[0] * fld.n[1];
      const size_t depth = fld.profile ? fld.n[2] : output_chunk_planes(plane * elem, fld.n[2]);
      for (size_t k0 = 0; k0 < fld.n[2]; k0 += depth) {
        const size_t nk = std::min(depth, fld.n[2] - k0);
        const std::vector<size_t> from = fld.start(size_t(records[i]), k0), to = fld.start(i, k0), count = fld.count(nk);
        raw.resize(plane * nk * elem);
        errno = 0;
        if (const int s = nc_get_vara(in, vid, from.data(), count.data(), raw.data())) read_error(name, s);
        ensure_room(raw.size(), 0, what);
        put_raw(fld.var, to, count, raw.data(), what);
      }
    }
    sync(what);
  }
  if (!records.empty()) {
    if (!required_fields.empty()) copy_1d("time", time_var, records);
    if (!profiles.empty()) copy_1d("profile_time", profile_time, records);
    if (!time_bnds.isNull()) copy_rows("time_bnds", time_bnds, records, 2);
    if (!profile_time_bnds.isNull()) copy_rows("profile_time_bnds", profile_time_bnds, records, 2);
    for (const auto& s : old_scalars) copy_1d(s, scalars.at(s), records);
  }
  if (!series_records.empty()) {
    copy_1d("diagnostic_time", series_time, series_records);
    for (const auto& s : old_series) copy_1d(s, series.at(s), series_records);
  }
  sync(what);
  *this->records = long(records.size());
  *this->series_records = long(series_records.size());
}

namespace {

std::vector<long> first(long n) {
  std::vector<long> v(size_t(std::max(0L, n)));
  for (long i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}

// Completes the flush a killed writer of `old_path` had committed (io/flush_journal.hpp).
// A live run's file is refused with `refuse`, which throws.
template <class Refuse>
void complete_last_flush(const std::string& old_path, Refuse&& refuse) {
  try {
    replay_flush_journal(old_path);
  } catch (const std::runtime_error& e) {
    refuse(e.what());
  }
}

}  // namespace

void NetcdfWriter::copy_records_from(const std::string& old_path, long records, long series_records) {
  Impl& m = *impl_;
  m.require_writable("copy_records_from");
  if (m.ranks) m.fail("copy_records_from: before share()");
  if (records_ != 0 || series_records_ != 0)
    m.fail("copy_records_from needs a new, empty file; this one already holds " + std::to_string(records_) +
           " snapshots and " + std::to_string(series_records_) + " diagnostics records");
  if (records < 0 || series_records < 0) m.fail("copy_records_from: negative record count");
  // A refused copy leaves no file behind: this partial file would hold only copies.
  m.remove_partial = true;
  const std::string new_file_hint = "; `--output NEW` starts a new file instead";
  auto refuse = [&](const std::string& why) {
    m.fail("cannot continue the earlier output " + old_path + ": " + why + new_file_hint);
  };

  complete_last_flush(old_path, refuse);
  ReadOnlyFile old(old_path);
  if (!old.ok()) refuse(old.reason());
  const int in = old.id();
  m.check_same_output(in, refuse);

  const long old_records = dim_length(in, m.required_fields.empty() ? "profile_time" : "time");
  if (old_records < records)
    refuse("it holds " + std::to_string(old_records) + " snapshots, fewer than the " + std::to_string(records) +
           " to continue from");
  const long old_series_records = dim_length(in, "diagnostic_time");
  if (series_records > 0 && old_series_records < series_records)
    refuse("it holds " + std::to_string(std::max(0L, old_series_records)) + " diagnostics records, fewer than the " +
           std::to_string(series_records) + " to continue from");

  // Every record the checkpoint counts must be complete (the check of bouss recover): a
  // damaged one is never copied, and the run is refused (exit 2) with what to do instead.
  // The fields and profiles are written as the check reads them (one read of the old file);
  // a refusal removes this partial file, which then holds nothing of use.
  const std::string what = "cannot copy records of " + old_path + " to " + m.partial;
  long written_record = -1;
  const RecordSurvey survey = survey_records(in, records, series_records, [&](const std::string& name, long r, const void* values) {
    const auto it = m.fields.find(name);
    if (it == m.fields.end()) return;  // check_same_output: the old file's own, left as they are
    const Impl::Field& fld = it->second;
    if (r != written_record && written_record >= 0) m.sync(what);  // each record flushed, as the writer does
    written_record = r;
    const std::vector<size_t> count = fld.count(fld.n[2]);
    m.ensure_room(fld.values() * (fld.profile ? sizeof(double) : m.field_bytes()), 0, what);
    m.put_raw(fld.var, fld.start(size_t(r), 0), count, values, what);
  });
  if (!survey.damaged.empty() || !survey.damaged_series.empty()) {
    const bool snapshot = !survey.damaged.empty();
    const DamagedRecord& d = snapshot ? survey.damaged.front() : survey.damaged_series.front();
    throw CaseError("netCDF output " + path_ + ": cannot continue the earlier output " + old_path + ": its " +
                    describe(d, snapshot ? "record" : "diagnostics record") +
                    ", and this checkpoint counts it; `bouss recover " + old_path +
                    "` copies the complete records into a new file; then restart with `--output NEW.nc`, "
                    "which starts a new file at the checkpoint");
  }
  m.copy_selected(in, old_path, first(records), first(series_records), false);
  m.remove_partial = false;
}

RecordSurvey NetcdfWriter::copy_complete_records_from(const std::string& old_path) {
  Impl& m = *impl_;
  m.require_writable("copy_complete_records_from");
  if (records_ != 0 || series_records_ != 0) m.fail("copy_complete_records_from needs a new, empty file");
  auto refuse = [&](const std::string& why) { m.fail("cannot recover " + old_path + ": " + why); };
  complete_last_flush(old_path, refuse);
  ReadOnlyFile old(old_path);
  if (!old.ok()) refuse(old.reason());
  const int in = old.id();
  m.check_same_output(in, refuse);
  const RecordSurvey survey = survey_records(in);
  m.copy_selected(in, old_path, survey.complete_records(), survey.complete_series_records());

  // The same global attributes (history, provenance, the case, the run's id).
  const std::string what = "cannot copy the attributes of " + old_path + " to " + m.partial;
  int natts = 0;
  nc_inq_natts(in, &natts);
  for (int a = 0; a < natts; ++a) {
    char name[NC_MAX_NAME + 1] = {};
    if (nc_inq_attname(in, NC_GLOBAL, a, name) != NC_NOERR) continue;
    m.run(what, [&] { return nc_copy_att(in, NC_GLOBAL, name, m.ncid, NC_GLOBAL); });
  }
  m.sync(what);
  return survey;
}

void NetcdfWriter::never_replace() { impl_->no_replace = true; }

void NetcdfWriter::append_history(const std::string& text) {
  Impl& m = *impl_;
  m.require_writable("append_history");
  const std::string what = "cannot append to the history of " + m.partial;
  std::string history = text_attribute(m.ncid, NC_GLOBAL, "history");
  while (!history.empty() && (history.back() == '\0' || history.back() == '\n')) history.pop_back();
  history += (history.empty() ? "" : "\n") + utc_now_iso8601() + ": " + text;
  if (m.ranks) {  // every rank puts rank 0's text (a collective put of one value)
    std::size_t n = history.size();
    m.ranks->broadcast(&n, sizeof n, 0);
    history.resize(n);
    m.ranks->broadcast(history.data(), n, 0);
  }
  m.ensure_room(history.size(), 1, what);
  m.run(what, [&] { return nc_put_att_text(m.ncid, NC_GLOBAL, "history", history.size(), history.data()); });
  m.sync(what);
}

void NetcdfWriter::close() {
  Impl& m = *impl_;
  if (m.closed) return;
  m.require_writable("close");
  const std::string what = "cannot finish " + m.partial;
  m.sync(what);
  if (m.writeback) m.writeback->end_deferral();  // MPI-IO's descriptors close with the file
  errno = 0;
  const int status = nc_close(m.ncid);
  const int err = errno;
  if (status != NC_NOERR) m.nc_failed(status, err, what);
  m.ncid = -1;
  m.writeback.reset();
  m.commit(what);  // what HDF5 wrote in place while closing
  m.journal.reset();
  // A file every rank writes: every rank's writes on the device before rank 0 puts it in
  // place (on several nodes each node's page cache holds its ranks' writes).
  if (m.ranks) m.fsync_everywhere(what);
  if (!m.lead()) {  // rank 0 puts the file in place
    m.closed = true;
    return;
  }
  try {
    // The data is durable before it appears under the final name.
    fsync_file(m.partial);
    if (m.no_replace) {
      // bouss recover: FILE must not exist; renameat2 refuses atomically if it appeared.
      if (::renameat2(AT_FDCWD, m.partial.c_str(), AT_FDCWD, m.target.c_str(), RENAME_NOREPLACE) != 0)
        throw std::runtime_error("cannot rename " + m.partial + " to " + m.target + ": " + std::strerror(errno) +
                                 (errno == EEXIST ? " (bouss never replaces a file here)" : ""));
      fsync_folder_of(m.target);
    } else {
      replace_file(m.partial, m.target);
    }
  } catch (const std::runtime_error& e) {
    m.failed = true;
    std::error_code ec;
    const bool left = fs::exists(m.partial, ec);
    m.fail(std::string(e.what()) + (left ? "; the complete output is in " + m.partial : std::string()));
  }
  m.closed = true;
}

void check_output_writable(const std::string& path) {
  if (path.empty()) return;
  auto fail = [&](const std::string& reason) {
    throw std::runtime_error("output file " + path + " cannot be written: " + reason);
  };
  const fs::path p(path);
  std::error_code ec;
  const fs::path parent = p.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) fail("cannot create folder " + parent.string() + ": " + ec.message());
    if (!fs::is_directory(parent, ec)) fail(parent.string() + " is not a folder");
  }
  std::string target;
  try {
    target = output_target(path);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }

  // Does the folder take a new file? A probe of a name no one else uses, created with
  // O_EXCL and removed again: nothing that was there before is touched.
  std::string probe;
  int fd = -1;
  for (int n = 0; fd < 0 && n < 1000; ++n) {
    probe = target + "." + std::to_string(::getpid()) + "." + std::to_string(n) + ".probe";
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    fs::path dir = fs::path(target).parent_path();
    fail("cannot create a file in " + (dir.empty() ? std::string(".") : dir.string()) + ": " + std::strerror(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());

  // Room for at least the file's header; each record is checked again when written.
  const std::uintmax_t free = free_bytes(target);
  if (free < kHeaderBytes) fail(std::string(std::strerror(ENOSPC)) + " (" + format_bytes(double(free)) + " free)");
  const std::uintmax_t limit = file_size_limit();
  if (limit < kHeaderBytes)
    fail(std::string(std::strerror(EFBIG)) + " (the file size limit, ulimit -f, is " + format_bytes(double(limit)) + ")");
}

}  // namespace bouss
