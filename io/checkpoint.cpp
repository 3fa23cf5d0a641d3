// Checkpoint files: see io/checkpoint.hpp and docs/checkpoint.md.
//
// The file is created, opened and closed with the netCDF C calls, and the definitions in
// between go through handles on the same C API (io/netcdf_handles.hpp): the writer decides
// itself what happens to a file whose writes failed (write_in_child below).
#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <netcdf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "config/fields.hpp"
#include "io/file_util.hpp"
#include "io/writeback.hpp"
#include "io/netcdf_handles.hpp"
#include "io/checkpoint_checksum.hpp"
#include "io/checkpoint_detail.hpp"

namespace bouss {
namespace checkpoint_detail {

using NcDim = nc::Dim;
using NcGroup = nc::Group;
using NcGroupAtt = nc::Att;

constexpr const char* kFormatAttribute = "bouss_checkpoint_format";
constexpr const char* kArraysAttribute = "bouss_arrays";  // the array names, in order, space-separated
// On each array: its checksum (io/checkpoint_checksum.hpp); on a region array, where its
// region starts (file order z, y, x) and its location (-1: centres, 0, 1, 2: faces along x, y, z).
constexpr const char* kChecksumAttribute = "bouss_checksum";
constexpr const char* kRegionAttribute = "bouss_region_start";
constexpr const char* kStaggerAttribute = "bouss_stagger";
// Prefixes of the driver's keys: no fixed attribute name contains a '.', so none can clash.
const std::string kStatePrefix = "state.";
const std::string kTextPrefix = "text.";
constexpr std::size_t kMaxNameLength = 200;  // NC_MAX_NAME is 256, less the prefix
// Chunks of at most 4 MiB: whole arrays when they fit, else slabs of z planes, else rows.
constexpr std::size_t kMaxChunkBytes = std::size_t(4) << 20;

// Dimension names: [face][axis], centres (x, y, z) and faces (xf, yf, zf).
const char* const kDimNames[2][3] = {{"x", "y", "z"}, {"xf", "yf", "zf"}};

// The long_name of an array of config/fields.hpp's table; its own name for another.
std::string long_name_of(const std::string& name) {
  const FieldInfo* f = find_field(name);
  return f ? f->long_name : name;
}

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw std::runtime_error("checkpoint " + path + ": " + reason);
}

// One line describing a netCDF failure (NcException::what() spans several lines).
std::string nc_reason(const NcException& e) {
  if (e.errorCode() != 0) return nc_strerror(e.errorCode());
  std::string w = e.what();
  auto nl = w.find('\n');
  if (nl != std::string::npos) w.erase(nl);
  return w;
}

// HDF5 reports a failed write() to netCDF only as "NetCDF: HDF error"; errno still says
// why. Only errors of the storage are named, since errno may hold leftovers otherwise.
std::string system_reason(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EROFS:
      return std::string(" (") + std::strerror(err) + ")";
    default:
      return "";
  }
}

// The dimension of a flat array; a region array's along axis a.
std::string flat_dimension(const std::string& name) { return name + "_values"; }
std::string region_dimension(const std::string& name, int a) { return name + "_" + kDimNames[0][a]; }

// Extents (nx_f, ny_f, nz_f) of an array on the given location.
std::array<std::size_t, 3> extents(const std::array<int, 3>& n, int stagger) {
  std::array<std::size_t, 3> e{};
  for (int a = 0; a < 3; ++a) e[a] = static_cast<std::size_t>(n[a]) + (stagger == a ? 1 : 0);
  return e;
}

// How many points of an axis of `extent` points go in one chunk: at most `most`, and at
// least half that, with the least padding. HDF5 stores an edge chunk at its full size, so
// 129 planes in chunks of 8 would store 136; in chunks of 5, 130.
std::size_t piece(std::size_t extent, std::size_t most) {
  most = std::max<std::size_t>(1, std::min(most, extent));
  std::size_t best = most, best_padding = extent;
  for (std::size_t d = most; d >= 1 && 2 * d >= most; --d) {
    const std::size_t padding = (extent + d - 1) / d * d - extent;
    if (padding < best_padding) best = d, best_padding = padding;
  }
  return best;
}

// The chunk of a flat array: at most 4 MiB of doubles, with the least padding (piece).
std::size_t flat_chunk(std::size_t values) { return piece(std::max<std::size_t>(values, 1), std::size_t(1) << 19); }

// Chunk shape in file order (z, y, x): the whole array when it fits in kMaxChunkBytes, else
// slabs of z planes, else slabs of rows within a plane. Where the writers' blocks are cut
// along axis a (cut[a]: the greatest common divisor of the cuts, 0 where none; least[a]: the
// smallest block's extent), a chunk's extent along it divides cut[a], so that each chunk lies
// in one rank's block; `own` says whether that held (when the largest such divisor in reach
// is below a quarter of the reach, the axis takes chunks with the least padding instead).
std::array<std::size_t, 3> chunk_shape(const std::array<std::size_t, 3>& e, const std::array<std::size_t, 3>& cut,
                                       const std::array<std::size_t, 3>& least, bool* own = nullptr) {
  bool all_own = true;
  const auto fit = [&](int a, std::size_t most) {
    most = std::max<std::size_t>(1, std::min(most, e[a]));
    if (cut[a] == 0) return piece(e[a], most);
    const std::size_t reach = std::max<std::size_t>(1, std::min(most, least[a]));
    for (std::size_t d = std::min(reach, cut[a]); d >= 1; --d)
      if (cut[a] % d == 0) {
        if (4 * d >= reach) return d;
        break;
      }
    all_own = false;
    return piece(e[a], most);
  };
  std::array<std::size_t, 3> chunk{1, fit(1, e[1]), fit(0, e[0])};
  if (sizeof(double) * chunk[2] > kMaxChunkBytes) chunk[2] = fit(0, kMaxChunkBytes / sizeof(double));
  const std::size_t row = sizeof(double) * chunk[2];
  if (row * chunk[1] > kMaxChunkBytes) chunk[1] = fit(1, kMaxChunkBytes / row);
  chunk[0] = fit(2, kMaxChunkBytes / (row * chunk[1]));
  if (own) *own = all_own;
  return chunk;
}

// Bytes the chunks of an array take in the file, edge chunks included (HDF5 allocates them
// whole; with no fill value, what no point of the array covers is not written).
std::uintmax_t stored_bytes(const std::array<std::size_t, 3>& e, const std::vector<std::size_t>& chunk) {
  std::uintmax_t bytes = sizeof(double);
  for (int d = 0; d < 3; ++d) bytes *= (e[2 - d] + chunk[std::size_t(d)] - 1) / chunk[std::size_t(d)] * chunk[std::size_t(d)];
  return bytes;
}

bool name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
         ch == '.' || ch == '-';
}

bool name_chars(const std::string& s) {
  return !s.empty() && s.size() <= kMaxNameLength && std::all_of(s.begin(), s.end(), name_char);
}

// Everything write_checkpoint checks before it touches the disk; "" when c can be written.
// `sizes`: the grid arrays hold the whole arrays' values (not a block's).
std::string check_contents(const Checkpoint& c, bool sizes) {
  for (int a = 0; a < 3; ++a)
    if (c.n[a] < 1)
      return std::string("cell count along ") + kDimNames[0][a] + " is " + std::to_string(c.n[a]) +
             ", expected at least 1";
  std::set<std::string> names;
  for (const auto& arr : c.arrays) {
    if (!valid_checkpoint_array_name(arr.name))
      return "array name '" + arr.name +
             "' is not allowed (a letter, then letters, digits, '_', '.' or '-'; not x, y, z, xf, yf or zf)";
    if (!names.insert(arr.name).second) return "array '" + arr.name + "' given twice";
    if (arr.stagger < -1 || arr.stagger > CheckpointArray::flat_array)
      return "array '" + arr.name + "' has stagger " + std::to_string(arr.stagger) + ", expected -1, 0, 1, 2 or 3";
    if (arr.stagger == CheckpointArray::flat_array) {
      if (arr.values.empty()) return "flat array '" + arr.name + "' is empty";
      continue;
    }
    if (!arr.region.empty()) {
      const auto whole = extents(c.n, arr.stagger);
      for (int a = 0; a < 3; ++a)
        if (arr.region.lo[a] < 0 || std::size_t(arr.region.hi[a]) > whole[a])
          return "array '" + arr.name + "': its region lies outside the grid";
    }
    const auto e = array_extents(c, arr);
    if (sizes && arr.values.size() != e[0] * e[1] * e[2]) {
      std::ostringstream os;
      os << "array '" << arr.name << "' has " << arr.values.size() << " values, expected " << e[0] * e[1] * e[2]
         << " (" << e[0] << " x " << e[1] << " x " << e[2] << ")";
      return os.str();
    }
  }
  for (const auto& kv : c.state)
    if (!valid_checkpoint_key(kv.first))
      return "state key '" + kv.first + "' is not allowed (letters, digits, '_', '.' or '-')";
  for (const auto& kv : c.text)
    if (!valid_checkpoint_key(kv.first))
      return "text key '" + kv.first + "' is not allowed (letters, digits, '_', '.' or '-')";
  return "";
}

std::array<std::size_t, 3> array_extents(const Checkpoint& c, const CheckpointArray& arr) {
  if (arr.region.empty()) return extents(c.n, arr.stagger);
  return {std::size_t(arr.region.extent(0)), std::size_t(arr.region.extent(1)), std::size_t(arr.region.extent(2))};
}

Box part_in_array(const CheckpointArray& arr, const Box& box) {
  if (arr.region.empty()) return box;
  Box r = intersect(box, arr.region);
  if (r.empty()) return Box{};
  for (int a = 0; a < 3; ++a) r.lo[a] -= arr.region.lo[a], r.hi[a] -= arr.region.lo[a];
  return r;
}

ArrayLayout layout_of(const Checkpoint& c, std::size_t i, std::size_t flat_size, const Cuts& cuts) {
  const CheckpointArray& arr = c.arrays[i];
  ArrayLayout l;
  if (arr.stagger == CheckpointArray::flat_array) {
    l.extents = {flat_size, 1, 1};
    l.chunk = {flat_chunk(flat_size)};
    return l;  // rank 0's alone
  }
  l.extents = array_extents(c, arr);
  // The cuts inside the array (its region's indices): every cut[a] points, the nearest two
  // least[a] apart.
  std::array<std::size_t, 3> cut{0, 0, 0}, least{0, 0, 0};
  for (std::size_t a = 0; a < 3; ++a) {
    const int lo = arr.region.empty() ? 0 : arr.region.lo[a];
    std::size_t last = 0;
    least[a] = l.extents[a];
    for (const int at : cuts[a]) {  // ascending
      if (at <= lo || std::size_t(at - lo) >= l.extents[a]) continue;
      const std::size_t here = std::size_t(at - lo);
      cut[a] = std::gcd(cut[a], here);
      least[a] = std::min(least[a], here - last);
      last = here;
    }
    if (cut[a]) least[a] = std::min(least[a], l.extents[a] - last);
  }
  const auto chunk = chunk_shape(l.extents, cut, least, &l.own_chunks);
  l.chunk.assign(chunk.begin(), chunk.end());
  return l;
}

// The file's attributes, dimensions and variables (no values): the same on every rank that
// writes a part of it. flat_sizes: each flat array's number of values, in c.arrays' order.
std::vector<NcVar> define_checkpoint(int ncid, const Checkpoint& c, const std::vector<std::size_t>& flat_sizes,
                                     const Cuts& cuts, const std::vector<std::uint64_t>& checksums) {
  NcGroup root(ncid);
  root.putAtt("Conventions", "CF-1.8");
  root.putAtt("title", "bouss checkpoint");
  root.putAtt("comment", "the state of a bouss run at one step, to continue it bit for bit (docs/checkpoint.md)");
  root.putAtt(kFormatAttribute, NC_INT, int(Checkpoint::format_version));
  root.putAtt("bouss_build", c.provenance);
  root.putAtt("case_json", c.case_json);
  root.putAtt("case_source", c.case_source);
  root.putAtt("time", NC_DOUBLE, c.time);
  root.putAtt("last_dt", NC_DOUBLE, c.last_dt);
  root.putAtt("step", NC_INT64, static_cast<long long>(c.step));
  root.putAtt("output_records", NC_INT64, static_cast<long long>(c.output_records));
  root.putAtt("series_records", NC_INT64, static_cast<long long>(c.series_records));
  std::string list;
  for (const auto& arr : c.arrays) list += (list.empty() ? "" : " ") + arr.name;
  root.putAtt(kArraysAttribute, list);
  for (const auto& kv : c.state) root.putAtt(kStatePrefix + kv.first, NC_DOUBLE, kv.second);
  for (const auto& kv : c.text) root.putAtt(kTextPrefix + kv.first, kv.second);

  std::array<std::array<NcDim, 3>, 2> dims;
  for (int s = 0; s < 2; ++s)
    for (int a = 0; a < 3; ++a) dims[s][a] = root.addDim(kDimNames[s][a], static_cast<std::size_t>(c.n[a]) + s);

  std::vector<NcVar> vars;
  std::size_t flat = 0;
  for (std::size_t i = 0; i < c.arrays.size(); ++i) {
    const CheckpointArray& arr = c.arrays[i];
    const bool flat_array = arr.stagger == CheckpointArray::flat_array;
    const ArrayLayout layout = layout_of(c, i, flat_array ? flat_sizes.at(flat++) : 0, cuts);
    std::vector<NcDim> on;
    if (flat_array) {
      on.push_back(root.addDim(flat_dimension(arr.name), layout.extents[0]));
    } else if (arr.region.empty()) {
      for (int a = 2; a >= 0; --a) on.push_back(dims[arr.stagger == a ? 1 : 0][a]);
    } else {
      // A region array on dimensions of its own (NAME_z, NAME_y, NAME_x), where it starts.
      for (int a = 2; a >= 0; --a) on.push_back(root.addDim(region_dimension(arr.name, a), layout.extents[std::size_t(a)]));
    }
    NcVar v = root.addVar(arr.name, NC_DOUBLE, on);
    v.setChunking(layout.chunk);
    // Every value is written: filling first would write each array twice.
    v.setNoFill();
    v.putAtt("long_name", long_name_of(arr.name));
    if (!flat_array) v.putAtt("grid_location", grid_location(Stagger(arr.stagger + 1)));
    if (!arr.region.empty()) {
      const long long start[3] = {arr.region.lo[2], arr.region.lo[1], arr.region.lo[0]};
      v.putAtt(kRegionAttribute, NC_INT64, 3, start);
      v.putAtt(kStaggerAttribute, NC_INT, arr.stagger);
    }
    // Its checksum: a restart from flipped bits would not be bit for bit.
    const unsigned long long sum = checksums.at(i);
    v.putAtt(kChecksumAttribute, NC_UINT64, 1, &sum);
    vars.push_back(v);
  }
  return vars;
}

// Each flat array's number of values, in c.arrays' order.
std::vector<std::size_t> flat_sizes_of(const Checkpoint& c) {
  std::vector<std::size_t> sizes;
  for (const auto& arr : c.arrays)
    if (arr.stagger == CheckpointArray::flat_array) sizes.push_back(arr.values.size());
  return sizes;
}

std::vector<Piece> pieces_of(const Checkpoint& c, std::size_t i, const ArrayLayout& layout, const Box* part,
                             bool flat_values) {
  const auto& arr = c.arrays[i];
  if (arr.stagger == CheckpointArray::flat_array) return {Piece{{0}, {flat_values ? arr.values.size() : 0}, 0}};
  const auto& e = layout.extents;
  Box box{{0, 0, 0}, {int(e[0]), int(e[1]), int(e[2])}};
  if (part) box = *part;
  const std::size_t depth = layout.chunk[0], plane = std::size_t(box.extent(0)) * std::size_t(box.extent(1));
  std::vector<Piece> pieces;
  for (std::size_t k = 0; k < e[2]; k += depth) {
    // The slab's planes of the box (none: a put of nothing, where the puts are collective).
    const std::size_t lo = std::max(k, std::size_t(std::max(box.lo[2], 0))),
                      hi = std::min(k + depth, std::size_t(std::max(box.hi[2], 0)));
    if (hi <= lo || box.empty()) {
      if (!layout.own_chunks) pieces.push_back({{k, 0, 0}, {0, 0, 0}, 0});
      continue;
    }
    pieces.push_back({{lo, std::size_t(box.lo[1]), std::size_t(box.lo[0])},
                      {hi - lo, std::size_t(box.extent(1)), std::size_t(box.extent(0))},
                      (lo - std::size_t(box.lo[2])) * plane});
  }
  return pieces;
}

// "" when every piece lies inside its array (its variable's extents) and within its values.
std::string check_pieces(const Checkpoint& c, std::size_t i, const ArrayLayout& layout,
                         const std::vector<Piece>& pieces) {
  const auto& arr = c.arrays[i];
  std::vector<std::size_t> extent;
  if (arr.stagger == CheckpointArray::flat_array) extent = {layout.extents[0]};
  else extent = {layout.extents[2], layout.extents[1], layout.extents[0]};
  for (const Piece& p : pieces) {
    std::size_t values = 1;
    for (std::size_t d = 0; d < extent.size(); ++d) {
      if (p.start[d] + p.count[d] > extent[d]) return "array '" + arr.name + "': a block outside it";
      values *= p.count[d];
    }
    if (values && p.offset + values > arr.values.size()) return "array '" + arr.name + "': a block beyond its values";
  }
  return "";
}

void write_pieces(const NcVar& var, const Checkpoint& c, std::size_t i, const std::vector<Piece>& pieces) {
  for (const Piece& p : pieces) var.putVar(p.start, p.count, c.arrays[i].values.data() + p.offset);
}

// Each array's checksum: one writer's whole arrays.
std::vector<std::uint64_t> checksums_of(const Checkpoint& c) {
  std::vector<std::uint64_t> sums;
  for (const CheckpointArray& arr : c.arrays) {
    if (arr.stagger == CheckpointArray::flat_array) {
      sums.push_back(checksum_part(arr.values.data(), arr.values.size()));
      continue;
    }
    const auto e = array_extents(c, arr);
    const Box whole{{0, 0, 0}, {int(e[0]), int(e[1]), int(e[2])}};
    sums.push_back(checksum_part(arr.values.data(), whole, whole, e));
  }
  return sums;
}

// `written` after each array (the writeback's start).
void define_and_write(int ncid, const Checkpoint& c, Writeback& written) {
  const std::vector<std::size_t> flat = flat_sizes_of(c);
  const std::vector<NcVar> vars = define_checkpoint(ncid, c, flat, Cuts{}, checksums_of(c));
  for (std::size_t i = 0, f = 0; i < c.arrays.size(); ++i) {
    const bool flat_array = c.arrays[i].stagger == CheckpointArray::flat_array;
    const ArrayLayout layout = layout_of(c, i, flat_array ? flat[f++] : 0, Cuts{});
    write_pieces(vars[i], c, i, pieces_of(c, i, layout, nullptr, true));
    written.start();
  }
}

// Writes c into `partial` and closes it; "" when that worked, else the reason. After a
// failure the netCDF handle is left open on purpose: see write_in_child.
std::string write_contents(const std::string& partial, const Checkpoint& c) {
  errno = 0;
  int ncid = -1;
  if (const int rc = nc_create(partial.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid); rc != NC_NOERR) {
    // netCDF turns any failure of H5Fcreate into EACCES, "Permission denied": a storage
    // error in errno is the better reason.
    const int err = errno;
    return "cannot create " + partial + ": " + (system_reason(err).empty() ? nc_strerror(rc) : std::strerror(err));
  }
  errno = 0;
  // The disk writes each array while the next goes into the page cache (io/writeback.hpp).
  Writeback writeback(partial);
  try {
    define_and_write(ncid, c, writeback);
  } catch (const NcException& e) {
    const int err = errno;
    return "cannot write " + partial + ": " + nc_reason(e) + system_reason(err);
  } catch (const std::exception& e) {
    return "cannot write " + partial + ": " + e.what();
  }
  // nc_close flushes what HDF5 still holds: this is where a full disk often shows.
  errno = 0;
  if (const int rc = nc_close(ncid); rc != NC_NOERR) {
    const int err = errno;
    return "cannot finish " + partial + ": " + nc_strerror(rc) + system_reason(err);
  }
  return "";
}

// Runs write_contents in a forked child and returns its outcome. Once a write inside HDF5
// has failed (a full disk, a file size limit), netCDF 4.9 with HDF5 1.10 cannot be cleaned
// up: nc_abort() crashes (in dumpopenobjects, after H5Fclose fails), and a handle left open
// crashes at exit (H5_term_library). The child reports through a pipe ('0', or '1' and the
// reason) and leaves with _exit() without closing anything, so this process's netCDF state
// is never touched by a failed write. The child only reads the caller's arrays, so fork()
// copies no data. When fork() is refused (too little memory to commit a copy of this
// process), the file is written here instead.
std::string write_in_child(const std::string& partial, const Checkpoint& c) {
  int fds[2];
  if (::pipe(fds) != 0) return write_contents(partial, c);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return write_contents(partial, c);
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string report;
    try {
      const std::string reason = write_contents(partial, c);
      report = reason.empty() ? "0" : "1" + reason;
    } catch (...) {
      report = "1cannot write " + partial + ": unexpected error";
    }
    for (std::size_t at = 0; at < report.size();) {
      const ssize_t put = ::write(fds[1], report.data() + at, report.size() - at);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) break;
      at += std::size_t(put);
    }
    ::_exit(report == "0" ? 0 : 1);
  }
  ::close(fds[1]);
  std::string report;
  char buf[512];
  for (;;) {
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    report.append(buf, std::size_t(got));
  }
  ::close(fds[0]);
  int status = 0;
  pid_t waited;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  // The report decides (waitpid fails when SIGCHLD is ignored); the exit status only tells
  // how a child that reported nothing ended.
  if (report == "0") return "";
  if (report.size() > 1 && report[0] == '1') return report.substr(1);
  if (waited == pid && WIFSIGNALED(status))
    return "the process writing " + partial + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "the process writing " + partial + " ended without reporting";
}


// Reading: each global attribute with its expected type, or a one-line reason.
class Reader {
 public:
  Reader(std::string path, int ncid) : path_(std::move(path)), root_(ncid), atts_(root_.getAtts()) {}

  [[noreturn]] void damaged(const std::string& what) const { fail(path_, "damaged: " + what); }

  const std::multimap<std::string, NcGroupAtt>& atts() const { return atts_; }

  const NcGroupAtt* find(const std::string& name) const {
    auto it = atts_.find(name);
    return it == atts_.end() ? nullptr : &it->second;
  }

  const NcGroupAtt& need(const std::string& name) const {
    const NcGroupAtt* a = find(name);
    if (!a) damaged("no global attribute '" + name + "'");
    return *a;
  }

  double real(const NcGroupAtt& a) const {
    if (a.getType() != NC_DOUBLE || a.getAttLength() != 1)
      damaged("global attribute '" + a.getName() + "' is not one double");
    double v = 0;
    a.getValues(&v);
    return v;
  }

  std::int64_t integer(const NcGroupAtt& a) const {
    if (a.getType() != NC_INT64 || a.getAttLength() != 1)
      damaged("global attribute '" + a.getName() + "' is not one 64-bit integer");
    long long v = 0;
    a.getValues(&v);
    return v;
  }

  std::string text(const NcGroupAtt& a) const {
    if (a.getType() != NC_CHAR) damaged("global attribute '" + a.getName() + "' is not text");
    std::string v;
    if (a.getAttLength() > 0) a.getValues(v);
    return v;
  }

  std::size_t dim_size(const std::string& name) const {
    NcDim d = root_.getDim(name);
    if (d.isNull()) damaged("no dimension '" + name + "'");
    return d.getSize();
  }

  NcGroup& root() { return root_; }

 private:
  std::string path_;
  NcGroup root_;
  std::multimap<std::string, NcGroupAtt> atts_;
};

// Closes a file opened for reading, on every path out of read_checkpoint.
struct OpenFile {
  int ncid = -1;
  ~OpenFile() {
    if (ncid >= 0) nc_close(ncid);
  }
};

Checkpoint read_checkpoint_part(const std::string& path, const CheckpointBlock* block);

}  // namespace checkpoint_detail

using namespace checkpoint_detail;

bool valid_checkpoint_array_name(const std::string& name) {
  if (!name_chars(name)) return false;
  const char first = name[0];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) return false;
  for (const auto& row : kDimNames)
    for (const char* d : row)
      if (name == d) return false;
  return true;
}

bool valid_checkpoint_key(const std::string& key) { return name_chars(key); }

std::string checkpoint_path(const std::string& stem, std::int64_t step) {
  return stem + ".checkpoint." + std::to_string(step) + ".nc";
}

std::optional<std::int64_t> checkpoint_step_of(const std::string& file_name, const std::string& stem_name) {
  const std::string prefix = stem_name + ".checkpoint.", suffix = ".nc";
  if (file_name.size() <= prefix.size() + suffix.size() || file_name.compare(0, prefix.size(), prefix) != 0 ||
      file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string digits = file_name.substr(prefix.size(), file_name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return std::nullopt;
  return std::int64_t(std::stoll(digits));
}

std::vector<std::string> checkpoints_of(const std::string& stem) {
  namespace fs = std::filesystem;
  const fs::path stem_path(stem);
  const fs::path folder = stem_path.has_parent_path() ? stem_path.parent_path() : fs::path(".");
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
    if (const auto step = checkpoint_step_of(it->path().filename().string(), stem_path.filename().string()))
      found.emplace_back(*step, checkpoint_path(stem, *step));
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(std::move(f.second));
  return paths;
}

std::string latest_checkpoint(const std::string& stem) {
  const std::vector<std::string> all = checkpoints_of(stem);
  return all.empty() ? std::string() : all.back();
}

std::uintmax_t checkpoint_bytes(const Checkpoint& c) { return checkpoint_detail::checkpoint_bytes(c, Cuts{}); }

namespace checkpoint_detail {

std::uintmax_t checkpoint_bytes(const Checkpoint& given, const Cuts& cuts) {
  // Measured with netCDF 4.9: an empty checkpoint takes 5 KiB, each array about 4.5 KiB
  // beyond its chunks (header, attributes, chunk index), each state or text entry about
  // 120 bytes beyond its name and value. The margin is several times that.
  std::uintmax_t bytes = 64 << 10;
  const auto attribute = [](std::size_t name, std::size_t value) { return std::uintmax_t(512 + name + value); };
  bytes += 16 * attribute(32, 64);  // the fixed attributes, less their strings
  bytes += given.provenance.size() + given.case_json.size() + given.case_source.size();
  for (const auto& kv : given.state) bytes += attribute(kStatePrefix.size() + kv.first.size(), sizeof(double));
  for (const auto& kv : given.text) bytes += attribute(kTextPrefix.size() + kv.first.size(), kv.second.size());
  Checkpoint c;  // the grid and the arrays' places, for their layouts (no values)
  c.n = given.n;
  for (int& na : c.n) na = std::max(na, 1);
  for (const auto& arr : given.arrays) {
    CheckpointArray shape{arr.name, arr.stagger >= -1 && arr.stagger <= 3 ? arr.stagger : -1, {}, arr.region};
    if (shape.stagger != CheckpointArray::flat_array && !shape.region.empty()) {
      const auto whole = extents(c.n, shape.stagger);
      for (int a = 0; a < 3; ++a)
        if (shape.region.lo[a] < 0 || std::size_t(shape.region.hi[a]) > whole[a]) shape.region = Box{};
    }
    c.arrays.push_back(shape);
  }
  for (std::size_t i = 0; i < c.arrays.size(); ++i) {
    const auto& arr = given.arrays[i];
    bytes += 16384 + 4 * arr.name.size();  // header, attributes, chunk index, a region's dimensions
    const ArrayLayout l = layout_of(c, i, arr.values.size(), cuts);
    if (c.arrays[i].stagger == CheckpointArray::flat_array) {
      const std::size_t chunk = l.chunk[0], chunks = (arr.values.size() + chunk - 1) / chunk;
      bytes += chunks * chunk * sizeof(double) + 256 * chunks;  // an edge chunk is stored whole
      continue;
    }
    const auto& e = l.extents;
    const std::uintmax_t chunks = ((e[2] + l.chunk[0] - 1) / l.chunk[0]) * ((e[1] + l.chunk[1] - 1) / l.chunk[1]) *
                                  ((e[0] + l.chunk[2] - 1) / l.chunk[2]);
    // The values as stored (at least what the caller gives), and each chunk's index entry.
    bytes += std::max<std::uintmax_t>(stored_bytes(e, l.chunk), arr.values.size() * sizeof(double)) + 256 * chunks;
  }
  return bytes;
}

}  // namespace checkpoint_detail

void write_checkpoint(const std::string& path, const Checkpoint& c, CheckpointTimes* times) {
  Stopwatch watch(times);
  if (path.empty()) fail(path, "empty file name");
  const std::string problem = check_contents(c);
  if (!problem.empty()) fail(path, problem);
  switch (path_kind(path)) {
    case PathKind::missing:
    case PathKind::regular: break;
    case PathKind::directory: fail(path, "it is a folder");
    case PathKind::other: fail(path, "it is not a regular file (a device, pipe or socket is never replaced)");
  }

  // The old checkpoint stays until the rename, so the new one needs all of its own room.
  const std::uintmax_t need = checkpoint_bytes(c), have = free_bytes(path);
  if (have < need)
    fail(path, "needs " + format_bytes(double(need)) + ", the disk has " + format_bytes(double(have)) + " free");

  PartialFile partial{partial_path(path)};
  // Created first with open(2) for the system's own reason on failure: netCDF reports a
  // missing folder as "Permission denied".
  const int fd = ::open(partial.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    fail(path, "cannot create " + partial.path + ": " + std::strerror(err));
  }
  partial.created = true;
  ::close(fd);

  watch.lap(&CheckpointTimes::checks);
  const std::string reason = write_in_child(partial.path, c);
  if (!reason.empty()) fail(path, reason);
  watch.lap(&CheckpointTimes::write);

  try {
    fsync_file(partial.path);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  try {
    replace_file(partial.path, path);
  } catch (const std::exception& e) {
    // replace_file fsyncs the folder after the rename: if that failed, the new checkpoint
    // is in place, and saying otherwise would be wrong.
    if (path_kind(partial.path) == PathKind::missing) {
      partial.created = false;
      fail(path, std::string("written, but ") + e.what());
    }
    fail(path, e.what());
  }
  partial.created = false;  // it is the checkpoint now
  watch.lap(&CheckpointTimes::sync);
}

Checkpoint read_checkpoint(const std::string& path) { return read_checkpoint_part(path, nullptr); }

std::string checkpoint_checksum_failure(const std::string& path, const std::vector<CheckpointChecksum>& parts,
                                        const Communicator& ranks) {
  std::vector<std::uint64_t> sums;
  for (const CheckpointChecksum& p : parts) sums.push_back(p.part);
  combine_across_ranks(ranks, sums.data(), int(sums.size()), [](std::uint64_t a, std::uint64_t b) { return a + b; });
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (sums[i] != parts[i].stored)
      return "checkpoint " + path + ": damaged: array '" + parts[i].name + "' does not match its checksum";
  return "";
}

Checkpoint read_checkpoint(const std::string& path, const CheckpointBlock& block) {
  return read_checkpoint_part(path, &block);
}

namespace checkpoint_detail {

Checkpoint read_checkpoint_part(const std::string& path, const CheckpointBlock* block) {
  switch (path_kind(path)) {
    case PathKind::missing: fail(path, is_symlink(path) ? "a broken symbolic link" : "no such file");
    case PathKind::directory: fail(path, "it is a folder");
    case PathKind::other: fail(path, "it is not a regular file");
    case PathKind::regular: break;
  }
  OpenFile file;
  if (const int rc = nc_open(path.c_str(), NC_NOWRITE, &file.ncid); rc != NC_NOERR) {
    file.ncid = -1;
    if (rc > 0) fail(path, std::string("cannot open: ") + nc_strerror(rc));  // a system error
    fail(path, std::string("not a NetCDF-4 file, or a truncated or damaged one (") + nc_strerror(rc) + ")");
  }

  Checkpoint c;
  try {
    Reader r(path, file.ncid);
    const NcGroupAtt* format = r.find(kFormatAttribute);
    if (!format) fail(path, std::string("not a bouss checkpoint (no global attribute ") + kFormatAttribute + ")");
    {
      const auto t = format->getType();
      if (format->getAttLength() != 1 || !(t == NC_INT || t == NC_SHORT || t == NC_BYTE ||
                                           t == NC_INT64 || t == NC_UINT || t == NC_USHORT ||
                                           t == NC_UBYTE || t == NC_UINT64))
        r.damaged(std::string("global attribute ") + kFormatAttribute + " is not one integer");
      long long v = 0;
      format->getValues(&v);
      if (v < Checkpoint::oldest_read_version || v > Checkpoint::format_version)
        fail(path, "written by format version " + std::to_string(v) + "; this build reads versions " +
                       std::to_string(Checkpoint::oldest_read_version) + " and " +
                       std::to_string(Checkpoint::format_version));
      c.version = static_cast<int>(v);
    }

    c.provenance = r.text(r.need("bouss_build"));
    c.case_json = r.text(r.need("case_json"));
    c.case_source = r.text(r.need("case_source"));
    c.time = r.real(r.need("time"));
    c.last_dt = r.real(r.need("last_dt"));
    c.step = r.integer(r.need("step"));
    c.output_records = r.integer(r.need("output_records"));
    c.series_records = r.integer(r.need("series_records"));

    for (int a = 0; a < 3; ++a) {
      const std::size_t centres = r.dim_size(kDimNames[0][a]), faces = r.dim_size(kDimNames[1][a]);
      if (centres < 1 || centres > std::size_t(std::numeric_limits<int>::max()))
        r.damaged(std::string("dimension ") + kDimNames[0][a] + " has " + std::to_string(centres) + " points");
      if (faces != centres + 1)
        r.damaged(std::string("dimension ") + kDimNames[1][a] + " has " + std::to_string(faces) +
                  " points, expected " + std::to_string(centres + 1) + " (" + kDimNames[0][a] + " + 1)");
      c.n[a] = static_cast<int>(centres);
    }

    for (const auto& kv : r.atts()) {
      const std::string& name = kv.first;
      if (name.compare(0, kStatePrefix.size(), kStatePrefix) == 0)
        c.state[name.substr(kStatePrefix.size())] = r.real(kv.second);
      else if (name.compare(0, kTextPrefix.size(), kTextPrefix) == 0)
        c.text[name.substr(kTextPrefix.size())] = r.text(kv.second);
    }

    std::istringstream list(r.text(r.need(kArraysAttribute)));
    std::set<std::string> seen;
    for (std::string name; list >> name;) {
      if (!seen.insert(name).second) r.damaged("array '" + name + "' is listed twice in " + kArraysAttribute);
      c.listed.insert(name);
      NcVar v = r.root().getVar(name);
      if (v.isNull()) r.damaged("array '" + name + "' (listed in " + kArraysAttribute + ") is missing");
      if (v.getType() != NC_DOUBLE) r.damaged("array '" + name + "' is " + nc::type_name(v.getType()) + ", expected double");
      // Format 3: the array's checksum (format 2: HDF5's on each chunk, checked as it reads).
      const auto stored_checksum = [&]() -> std::optional<std::uint64_t> {
        if (c.version < 3) return std::nullopt;
        if (!v.hasAtt(kChecksumAttribute)) r.damaged("array '" + name + "' has no attribute " + kChecksumAttribute);
        const NcGroupAtt sum = v.getAtt(kChecksumAttribute);
        if (sum.getType() != NC_UINT64 || sum.getAttLength() != 1)
          r.damaged("array '" + name + "': its " + kChecksumAttribute + " is not one unsigned 64-bit integer");
        unsigned long long value = 0;
        sum.getValues(&value);
        return value;
      };
      const auto mismatch = [&] { r.damaged("array '" + name + "' does not match its checksum"); };
      const std::vector<NcDim> dims = v.getDims();
      if (dims.size() == 1 && dims[0].getName() == flat_dimension(name)) {
        if (block && !block->others) continue;
        const auto stored = stored_checksum();
        CheckpointArray arr;
        arr.name = name;
        arr.stagger = CheckpointArray::flat_array;
        arr.values.resize(dims[0].getSize());
        try {
          v.getVar(arr.values.data());
        } catch (const NcException& ex) {
          r.damaged("cannot read array '" + name + "': " + nc_reason(ex));
        }
        if (stored && checksum_part(arr.values.data(), arr.values.size()) != *stored) mismatch();
        c.arrays.push_back(std::move(arr));
        continue;
      }
      CheckpointArray arr;
      arr.name = name;
      const bool region = c.version >= 3 && v.hasAtt(kRegionAttribute);
      int stagger = -1;
      if (region) {
        // On (NAME_z, NAME_y, NAME_x), from bouss_region_start (z, y, x), on bouss_stagger's points.
        const NcGroupAtt start = v.getAtt(kRegionAttribute);
        bool ok = dims.size() == 3 && start.getType() == NC_INT64 && start.getAttLength() == 3 &&
                  v.hasAtt(kStaggerAttribute);
        long long at[3] = {0, 0, 0}, st = -2;
        if (ok) {
          start.getValues(at);
          const NcGroupAtt s = v.getAtt(kStaggerAttribute);
          ok = s.getAttLength() == 1;
          if (ok) s.getValues(&st);
          ok = ok && st >= -1 && st <= 2;
        }
        for (std::size_t d = 0; ok && d < 3; ++d) ok = dims[d].getName() == region_dimension(name, 2 - int(d));
        if (!ok)
          r.damaged("region array '" + name + "' is not on (" + region_dimension(name, 2) + ", " + region_dimension(name, 1) +
                    ", " + region_dimension(name, 0) + ") with a start of three 64-bit integers and a stagger of -1 to 2");
        stagger = int(st);
        const auto whole = extents(c.n, stagger);
        for (int a = 0; a < 3; ++a) {
          const long long lo = at[2 - a], extent = (long long)dims[std::size_t(2 - a)].getSize();
          if (lo < 0 || extent < 1 || std::size_t(lo + extent) > whole[std::size_t(a)])
            r.damaged("region array '" + name + "' lies outside the grid");
          arr.region.lo[a] = int(lo);
          arr.region.hi[a] = int(lo + extent);
        }
      } else {
        // Expected: (z|zf, y|yf, x|xf) with at most one face dimension.
        bool ok = dims.size() == 3;
        for (std::size_t d = 0; ok && d < 3; ++d) {
          const int a = 2 - static_cast<int>(d);
          const std::string dn = dims[d].getName();
          if (dn == kDimNames[1][a] && stagger == -1)
            stagger = a;
          else if (dn != kDimNames[0][a])
            ok = false;
        }
        if (!ok) {
          std::string on;
          for (const auto& d : dims) on += (on.empty() ? "" : ", ") + d.getName();
          r.damaged("array '" + name + "' is on (" + on +
                    "), expected (z, y, x) with at most one of them replaced by its faces (zf, yf, xf)");
        }
      }
      if (block && (region ? !block->others : block->arrays && !block->arrays->count(name))) continue;
      arr.stagger = stagger;
      const auto stored = stored_checksum();
      const auto e = array_extents(c, arr);
      // The whole array, or the block's box of it (file order z, y, x; a region array's share
      // of the block), in the array's own indices; nothing of another grid.
      Box box{{0, 0, 0}, {int(e[0]), int(e[1]), int(e[2])}}, counted = box;
      if (block) {
        const std::size_t s = std::size_t(stagger + 1);
        const Box share = block->n == c.n ? (block->shares ? (*block->shares)[s] : block->boxes[s]) : Box{};
        box = block->n == c.n ? part_in_array(arr, region ? share : block->boxes[s]) : Box{};
        counted = intersect(part_in_array(arr, share), box);
      }
      for (int a = 0; a < 3; ++a)
        if (box.lo[a] < 0 || box.hi[a] > int(e[a]))
          throw std::invalid_argument("read_checkpoint: a block outside the array '" + name + "'");
      arr.values.resize(std::size_t(box.cells()));
      // No chunk cache: each chunk is read once, into the block (with a cache, HDF5 kept up
      // to its default 16 MiB of them besides).
      nc_set_var_chunk_cache(file.ncid, v.getId(), 0, 0, 0.75f);
      try {
        if (!arr.values.empty())
          v.getVar({std::size_t(box.lo[2]), std::size_t(box.lo[1]), std::size_t(box.lo[0])},
                   {std::size_t(box.extent(2)), std::size_t(box.extent(1)), std::size_t(box.extent(0))},
                   arr.values.data());
      } catch (const NcException& ex) {
        r.damaged("cannot read array '" + name + "': " + nc_reason(ex));
      }
      if (stored) {
        const std::uint64_t part = checksum_part(arr.values.data(), box, counted, e);
        if (!block) {
          if (part != *stored) mismatch();
        } else {
          c.checksums.push_back({name, *stored, part});
        }
      }
      c.arrays.push_back(std::move(arr));
    }
  } catch (const NcException& e) {
    fail(path, "damaged: " + nc_reason(e));
  }
  return c;
}

}  // namespace checkpoint_detail

}  // namespace bouss
