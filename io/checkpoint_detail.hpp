// The checkpoint format's own steps that its two writers share (io/checkpoint.cpp: one rank's
// whole arrays; io/checkpoint_blocks.cpp: every rank's block at once). Not for other files.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "grid/box.hpp"
#include "io/checkpoint.hpp"
#include "io/netcdf_handles.hpp"

namespace bouss::checkpoint_detail {

using NcVar = nc::Var;
using NcException = nc::Error;

// Throws std::runtime_error("checkpoint PATH: REASON").
[[noreturn]] void fail(const std::string& path, const std::string& reason);
// One line for a NetCDF failure; the system's reason for a failed write (" (No space left on
// device)"), empty where errno holds nothing of the storage's.
std::string nc_reason(const NcException& e);
std::string system_reason(int err);

// Everything a write checks before it touches the disk; "" when c can be written. `sizes`:
// the grid arrays hold the whole arrays' values (not a block's).
std::string check_contents(const Checkpoint& c, bool sizes = true);

// Removes the partial file once this process created it, unless the write got through.
struct PartialFile {
  std::string path;
  bool created = false;
  ~PartialFile() {
    if (created) std::remove(path.c_str());
  }
};

// The laps of a checkpoint's write, each added to its field of `times` (none when null).
class Stopwatch {
 public:
  explicit Stopwatch(CheckpointTimes* times) : times_(times), last_(std::chrono::steady_clock::now()) {}
  void lap(double CheckpointTimes::*field) {
    const auto now = std::chrono::steady_clock::now();
    if (times_) times_->*field += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  CheckpointTimes* times_;
  std::chrono::steady_clock::time_point last_;
};

// Where the writing ranks' blocks are cut along each axis (x, y, z): the first index of each
// block not at 0, in the whole grid's cells; none for one writer.
using Cuts = std::array<std::vector<int>, 3>;

// How an array lies in the file: its extents (x, y, z: its region's or the whole array's;
// a flat array's {values, 1, 1}), its chunks (file order: z, y, x; a flat array's one
// extent), and whether every chunk lies in one writing rank's block (then each rank writes
// its own chunks independently, else every put is collective).
struct ArrayLayout {
  std::array<std::size_t, 3> extents{};
  std::vector<std::size_t> chunk;
  bool own_chunks = true;
};
// Array i of c, a flat one of flat_size values; chunks within the blocks that `cuts` makes.
ArrayLayout layout_of(const Checkpoint& c, std::size_t i, std::size_t flat_size, const Cuts& cuts);

// The file's attributes, dimensions and variables (no values): the same on every rank that
// writes a part of it. flat_sizes: each flat array's number of values, in c.arrays' order;
// checksums: each array's (io/checkpoint_checksum.hpp), in that order.
std::vector<NcVar> define_checkpoint(int ncid, const Checkpoint& c, const std::vector<std::size_t>& flat_sizes,
                                     const Cuts& cuts, const std::vector<std::uint64_t>& checksums);

// One put of an array's values: where in the variable (file order), and from where in the
// array's values.
struct Piece {
  std::vector<std::size_t> start, count;
  std::size_t offset = 0;
};
// The puts of array i of c (laid out as `layout`): slab by slab of whole chunks along z, of
// the box `part` of it in its own indices (the whole array or region when null); a flat
// array in one put of all its values (of none where `flat_values` is false). Every rank that
// writes a part of a parallel file makes the same number of puts of each array (some of
// nothing): where the puts are collective, each rank makes each of them.
std::vector<Piece> pieces_of(const Checkpoint& c, std::size_t i, const ArrayLayout& layout, const Box* part,
                             bool flat_values);
// "" when every piece lies inside its array and within its values.
std::string check_pieces(const Checkpoint& c, std::size_t i, const ArrayLayout& layout,
                         const std::vector<Piece>& pieces);
void write_pieces(const NcVar& var, const Checkpoint& c, std::size_t i, const std::vector<Piece>& pieces);

// An upper bound on the file's bytes (checkpoint_bytes) with chunks within the blocks of `cuts`.
std::uintmax_t checkpoint_bytes(const Checkpoint& c, const Cuts& cuts);

// The extents (x, y, z) of a grid or region array of c: its region's, or its location's.
std::array<std::size_t, 3> array_extents(const Checkpoint& c, const CheckpointArray& arr);
// The points of `box` (the whole array's indices on the array's location) that a grid or
// region array holds, in the array's own indices (its region's): a rank's part of it.
Box part_in_array(const CheckpointArray& arr, const Box& box);

}  // namespace bouss::checkpoint_detail
