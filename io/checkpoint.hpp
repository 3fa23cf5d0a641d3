// Checkpoints: everything a run needs to continue bit for bit, in one NetCDF-4 file
// written atomically (docs/checkpoint.md). This file is the format, the writing and the
// reading; the run driver decides what goes in and when.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grid/box.hpp"
#include "parallel/communicator.hpp"

namespace bouss {

// One field of the run's state: interior values on its own grid location.
struct CheckpointArray {
  std::string name;  // "u", "v", "w", "theta", "p", "G_u", "G_v", "G_w", "G_T", ...
  // -1: cell centres (nx, ny, nz); 0, 1, 2: faces along x, y, z (one more point on that axis);
  // flat_array: values of no grid shape (a time average's sums), on a dimension of their own.
  int stagger = -1;
  static constexpr int flat_array = 3;
  // Interior values, C order with x fastest: i + nx_f*(j + ny_f*k), (nx_f, ny_f, nz_f) the
  // array's own extents (its region's, where it has one).
  std::vector<double> values;
  // A grid array over a box of its location's points alone (a time average's sums over a
  // stream's region), in the whole array's indices; empty: the whole array.
  Box region;
};

// A block read's part of an array's checksum (io/checkpoint_checksum.hpp): what the file
// says of the whole array, and the sum over this rank's share of the points.
struct CheckpointChecksum {
  std::string name;
  std::uint64_t stored = 0, part = 0;
};

struct Checkpoint {
  // 2: the temperature is stored as theta = T - T_ref(z) (physics/flow.hpp), not T.
  // 3: bouss's own checksum of each array in place of HDF5's on each chunk (written by
  // ranks' blocks at the disk's rate), region arrays (a time average's sums), chunks within
  // the writing ranks' blocks. A build reads 2 and 3.
  static constexpr int format_version = 3;
  static constexpr int oldest_read_version = 2;
  int version = format_version;  // as read; a write always writes format_version
  std::string provenance;        // build_provenance() of the writer
  std::string case_json;         // the case as run (after --set), to be re-parsed on restart
  std::string case_source;       // the case file it came from
  std::array<int, 3> n{};        // cells per axis
  double time = 0;               // simulation time
  double last_dt = 0;            // the last step's dt (the AB2 coefficients need it)
  std::int64_t step = 0;         // steps done since the original start
  std::vector<CheckpointArray> arrays;  // written and read back in this order
  std::set<std::string> listed;         // read back: every array the file holds (read or left out)
  // The driver's scalars (output schedule, diagnostics, failure counter, ...), kept exactly.
  std::map<std::string, double> state;
  // The driver's strings (output path, its partial name, ...).
  std::map<std::string, std::string> text;
  std::int64_t output_records = 0, series_records = 0;  // records in the output file at this step
  // A block read of a format 3 file: each array's part of its checksum, for
  // checkpoint_checksum_failure (a whole read checks each array itself).
  std::vector<CheckpointChecksum> checksums;
};

// Names allowed for arrays (a letter, then letters, digits, '_', '.', '-'; not a dimension
// name x y z xf yf zf) and for state and text keys (letters, digits, '_', '.', '-'), both
// at most 200 characters. write_checkpoint refuses others before touching the disk.
bool valid_checkpoint_array_name(const std::string& name);
bool valid_checkpoint_key(const std::string& key);

// STEM.checkpoint.<step>.nc, e.g. checkpoint_path("out/rb", 1200) == "out/rb.checkpoint.1200.nc".
std::string checkpoint_path(const std::string& stem, std::int64_t step);

// The step of a checkpoint's file name (no folder) of the stem's file name: 1200 for
// ("rb.checkpoint.1200.nc", "rb"); nothing for any other name.
std::optional<std::int64_t> checkpoint_step_of(const std::string& file_name, const std::string& stem_name);
// Every checkpoint of `stem` (STEM.checkpoint.<digits>.nc in STEM's folder), by ascending step.
std::vector<std::string> checkpoints_of(const std::string& stem);

// The checkpoint of `stem` with the highest step (STEM.checkpoint.<digits>.nc in STEM's
// folder), or "" when there is none or the folder cannot be read.
std::string latest_checkpoint(const std::string& stem);

// An upper bound on the bytes the file will take: the arrays plus a margin for metadata
// (attributes, strings, chunk index and checksums). The disk-room check uses it.
std::uintmax_t checkpoint_bytes(const Checkpoint& c);

// Where a checkpoint's write spent its time, in seconds (the run's log line says it).
struct CheckpointTimes {
  double checks = 0;  // the checks and the disk's room; by block also the checksums, agreed
  double write = 0;   // into the file (the page cache): HDF5's puts and close
  double sync = 0;    // onto the device (fsync) and into place
};

// Writes c to `path` atomically. First checks c (names, sizes) and the free space
// ("checkpoint PATH: needs X, the disk has Y free"); then writes partial_path(path), closes
// and fsyncs it, and renames it to `path` with replace_file() (which fsyncs the folder).
// On any failure the partial file is removed, a file already at `path` is left untouched,
// and std::runtime_error carries one line, "checkpoint PATH: REASON", with the system's
// reason (such as "No space left on device") where one is known.
// The NetCDF writing runs in a forked child process (this process waits for it), so that a
// write failing inside HDF5 cannot leave this process's netCDF library broken; see
// write_in_child in checkpoint.cpp. Call it from one thread, while no other thread is
// inside netCDF.
void write_checkpoint(const std::string& path, const Checkpoint& c, CheckpointTimes* times = nullptr);

// What one rank of a decomposed run reads (or writes) of each grid array: the box of its points, in the
// whole array's indices (x fastest), for each location ([0]: cell centres; [1], [2], [3]:
// faces along x, y, z), of a checkpoint of n cells. A write's boxes are the rank's share of
// a partition of the points among the ranks (grid/gather.hpp supplied_box_of_rank); a region
// array's values are then those of its region's points in the rank's box.
struct CheckpointBlock {
  std::array<int, 3> n{};
  std::array<Box, 4> boxes;
  // A read: this rank's share of each location in a partition of the points among the
  // reading ranks (inside `boxes`): a region array is read for these points alone, and
  // every array's checksum part counts them. Unset: `boxes`.
  std::optional<std::array<Box, 4>> shares;
  // A read: the whole-grid arrays to read (the others are left out of the result); every
  // one when unset.
  std::optional<std::set<std::string>> arrays;
  // A read: whether the flat and region arrays are read too.
  bool others = true;
};

// The same file as write_checkpoint, written by every rank of `ranks` at once, where
// ranks_write_one_file(ranks) (io/netcdf_handles.hpp; otherwise rank 0 writes the whole);
// collectively: every rank calls it, on its IO thread, with Communicator::io. Each rank's grid arrays hold
// the values of its box in `supplied` for their location (the points only it supplies, x
// fastest); the metadata, and the flat arrays (written by rank 0), are rank 0's. Rank 0's
// checks (names, the path, the disk's room) come first and the file is put in place by rank
// 0 as a checkpoint of one rank is; any rank's failure throws the same one line on every rank.
void write_checkpoint(const std::string& path, Checkpoint mine, const CheckpointBlock& supplied,
                      const Communicator& ranks, CheckpointTimes* times = nullptr);

// Reads a checkpoint. Throws std::runtime_error with one line, "checkpoint PATH: REASON",
// when the file is missing, is not a bouss checkpoint, was written in a format version this
// build does not read ("written by format version 7; this build reads versions 2 and 3"),
// or is damaged (a missing or ill-shaped variable or attribute, an array that does not
// match its checksum).
Checkpoint read_checkpoint(const std::string& path);

// The same, but each grid array's values are those of `block`'s box for its location alone,
// read as one hyperslab (no rank reads a whole array), and a region array's those of its
// share, when the file's grid has block.n cells; a checkpoint of another grid has its grid
// arrays' values left empty (the caller's comparison of the cases names the difference).
// Flat arrays are read whole and checked here; the other arrays' checksums are the ranks'
// together: Checkpoint::checksums, for checkpoint_checksum_failure.
Checkpoint read_checkpoint(const std::string& path, const CheckpointBlock& block);

// Collective: "" when the ranks' parts of each array's checksum (the same arrays, in the same
// order, on every rank; their shares a partition of each array) add up to the stored ones,
// else "checkpoint PATH: damaged: array 'T' does not match its checksum" on every rank.
std::string checkpoint_checksum_failure(const std::string& path, const std::vector<CheckpointChecksum>& parts,
                                        const Communicator& ranks);

}  // namespace bouss
