// The checkpoint format's own steps that its two writers share (io/checkpoint.cpp: one rank's
// whole arrays; io/checkpoint_blocks.cpp: every rank's block at once). Not for other files.
#pragma once

#include <cstddef>
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

// The file's attributes, dimensions and variables (no values): the same on every rank that
// writes a part of it. flat_sizes: each flat array's number of values, in c.arrays' order.
std::vector<NcVar> define_checkpoint(int ncid, const Checkpoint& c, const std::vector<std::size_t>& flat_sizes);

// One put of an array's values: where in the variable (file order), and from where in the
// array's values.
struct Piece {
  std::vector<std::size_t> start, count;
  std::size_t offset = 0;
};
// The puts of array i of c: slab by slab of whole chunks along z, of the box `part` of it (the
// whole array when null); a flat array in one put of all its values (of none where
// `flat_values` is false). Every rank that writes a part of a parallel file makes the same
// number of puts of each array: each is collective.
std::vector<Piece> pieces_of(const Checkpoint& c, std::size_t i, const Box* part, bool flat_values);
// "" when every piece lies inside its array and within its values.
std::string check_pieces(const Checkpoint& c, std::size_t i, const std::vector<Piece>& pieces,
                         const std::vector<std::size_t>& flat_sizes, std::size_t flat_index);
void write_pieces(const NcVar& var, const Checkpoint& c, std::size_t i, const std::vector<Piece>& pieces);

}  // namespace bouss::checkpoint_detail
