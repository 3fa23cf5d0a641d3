// NetCDF-4 output following CF-1.8: one file per run, an unlimited time dimension,
// staggered C-grid fields on their own coordinates.
//
// The file is written under a per-process partial name, FILE.<pid>.partial, and each
// snapshot and each diagnostics record is flushed (nc_sync) and committed through the flush
// journal (io/flush_journal.hpp) when written, so a run that is killed at any moment leaves a
// partial file that reads back exactly as its last completed flush left it (or, killed while
// a commit goes into the file, one that `bouss recover` completes). close() renames it to
// FILE, replacing only a missing or regular file; until then an existing FILE is untouched.
// docs/output.md says exactly what is guaranteed.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "config/diagnostics.hpp"
#include "io/record_check.hpp"

namespace bouss {

class Communicator;

// Interior values of one field, C order with x fastest: index = i + nx_f*(j + ny_f*k),
// where (nx_f, ny_f, nz_f) are the field's own extents (n, plus one along its staggered axis).
struct SnapshotField {
  std::string name;            // "T", "u", "v", "w" or "p"
  std::vector<double> values;  // size nx_f*ny_f*nz_f
};

class NetcdfWriter {
 public:
  // Creates the partial file with dimensions, coordinates, attributes and the case JSON.
  // When `path` is a symbolic link to a regular file, the output is written through it: the
  // partial file lies beside the link's target and close() replaces the target (the link
  // stays). Throws std::runtime_error (one line naming the path) when the file cannot be
  // created; a writer that fails here removes the partial file it created, and nothing else.
  //
  // The file holds what `stream` asks for (its fields over its region, its profiles, its
  // precision and compression); the two-argument form writes the case's first stream. An
  // averaged stream (stream.average.enabled) holds, per record, the time means over the
  // interval since the one before (CF: time_bnds, cell_methods "time: mean") and one variable
  // per moment "a*b", the covariance of a and b over the interval, on the region's cell
  // centres (moment_variable: T_variance, w_c_T_covariance).
  NetcdfWriter(const std::string& path, const Case& c, const OutputStream& stream);
  NetcdfWriter(const std::string& path, const Case& c);
  // Creation::shared_later: the file rank 0 writes until share() (made by parallel HDF5),
  // whose fields' chunks are cut along x and y to `block`, the cells of rank 0's block (the
  // largest of the cut), so that each rank writes whole chunks of its own (z as on one rank:
  // a horizontal slice reads the bytes it did); {0, 0}: whole planes, as on one rank.
  enum class Creation { alone, shared_later };
  NetcdfWriter(const std::string& path, const Case& c, const OutputStream& stream, Creation creation,
               std::array<int, 2> block = {0, 0});
  // The writer of a rank other than 0 of a file the ranks write together (share): it creates
  // and checks nothing until share() opens rank 0's file.
  struct Joining {};
  NetcdfWriter(Joining, const std::string& path, const Case& c, const OutputStream& stream);
  // Without close() (a failed run): closes the NetCDF handle quietly and leaves the partial
  // file in place, holding every record flushed so far. FILE is untouched.
  ~NetcdfWriter();
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;

  // The interval [start, end] a record of an averaged stream (OutputStream::average) holds
  // the time means over: its time is `end`.
  using TimeBounds = std::array<double, 2>;

  // Appends one record along time and flushes it. Every field of the stream must be given
  // (in double: stored as float when its precision is "float"), and for an averaged stream
  // every moment, under its variable's name (config/fields.hpp moment_variable); scalars
  // (e.g. "step") become variables on (time); `bounds` as for begin_record. Not for a stream
  // with profiles (begin_record does those).
  void write(double time, const std::vector<SnapshotField>& fields,
             const std::map<std::string, double>& scalars, std::optional<TimeBounds> bounds = std::nullopt);

  // The same record in pieces (the asynchronous snapshot path): begin_record() checks the
  // room for the whole record and writes its time, its bounds and scalars; write_slab() puts
  // z-planes [k0, k0 + nk) of one field (or of a moment's variable, T_variance, ...),
  // `values` in the file's precision (float or double), C order; end_record() flushes the
  // record and counts it. Slabs of whole HDF5 chunks (output_chunk_planes below) write
  // fastest. A record is complete in the file (io/record_check.hpp, what a restart and
  // `bouss recover` keep) when every field, moment and profile, its time and its bounds were
  // written.
  //
  // An averaged stream's record needs `bounds`, written to time_bnds (and profile_time_bnds
  // with profiles); a snapshot stream's record has none. Either mistake throws (one line)
  // before anything of the record is written.
  void begin_record(double time, const std::map<std::string, double>& scalars,
                    std::optional<TimeBounds> bounds = std::nullopt);
  void write_slab(const std::string& field, int k0, int nk, const void* values);
  // The record's profiles, in double, one after the other in the stream's order, each with
  // its own number of z levels (nz, or nz + 1 on the faces: physics/profiles.hpp
  // profile_values counts them).
  void write_profiles(const double* values);
  void end_record();
  // Flushes what was written and fsyncs the partial file (benchmarks time from a clean disk).
  void flush_to_disk();
  // Appends one record to the diagnostics series, a second unlimited dimension
  // `diagnostic_time` (written every few steps, more often than snapshots), and flushes it.
  // Each key becomes a variable on it, with the long_name and units describe_diagnostics gave it.
  void write_series(double time, const std::map<std::string, double>& values);
  // The diagnostics' descriptions (model/diagnostics.hpp), for the series' variables and a
  // record's scalars, before any is written or copied; a key without one (but "step", the
  // record's own) gets its name with '_' -> ' ' and no units (dimensionless).
  void describe_diagnostics(const std::vector<DiagnosticInfo>& info);

  // Copies records [0, records) of the time dimension and [0, series_records) of the
  // diagnostics series from an earlier output file of the same run into this (new, empty)
  // file, so that a restarted run continues it (an averaged stream's time bounds and moments
  // with them). First completes the last flush of a killed writer of `old_path` from its
  // journal (io/flush_journal.hpp). Throws (one line) when `old_path` is missing or
  // unreadable, holds fewer records, or its output fields, its averaging (time averages or
  // snapshots) or its moments differ from this writer's (say so, and that `--output NEW`
  // starts a new file instead); throws
  // CaseError when one of the records to copy is not complete (io/record_check.hpp), naming
  // it and saying to run `bouss recover`. A writer whose copy was refused removes its partial
  // file when destroyed (it would hold only copies).
  void copy_records_from(const std::string& old_path, long records, long series_records);
  // bouss recover: copies every complete record of `old_path` (io/record_check.hpp; after
  // completing its last flush from its journal), in order, into this new, empty file, and
  // its global attributes; returns which records were left out and why. The same checks of
  // the file as copy_records_from.
  RecordSurvey copy_complete_records_from(const std::string& old_path);
  // close() will not replace an existing FILE (it fails, and the data stays in the partial
  // file), instead of replacing a regular one.
  void never_replace();
  // Appends "TIMESTAMP: TEXT" to the global history attribute.
  void append_history(const std::string& text);

  // Flushes, closes and fsyncs the partial file, then renames it to FILE (or, through a
  // symbolic link, to the link's target). A missing or regular file is replaced; anything
  // else is refused, and the complete data stays in the partial file.
  void close();

  // Every failure of the methods above (NetCDF/HDF5 errors, a full disk, a file size
  // limit, a failed rename) throws std::runtime_error with one line,
  // "netCDF output FILE: REASON", where REASON names the partial file and the system's
  // reason ("No space left on device", "File too large", ...). After an I/O failure the
  // writer is finished: later calls throw, and the partial file keeps what was flushed.

  // ---- One file written by every rank (parallel NetCDF-4: HDF5 over MPI-IO) ----
  //
  // Where ranks_write_one_file(ranks) (io/netcdf_handles.hpp). Collective over `ranks`, every rank with its writer (rank 0's made by the constructors
  // above, which created the file, wrote its header and perhaps copied an earlier file's
  // records; the others' Joining): rank 0 flushes and closes the file, and every rank opens
  // it for parallel writes. From here on begin_record, write_block, write_profiles,
  // end_record, write_series, append_history, flush_to_disk and close are collective: every
  // rank makes the same calls with the same arguments (rank 0's times, scalars, profiles and
  // diagnostics are written); a failure is agreed, so every rank throws the same line.
  //
  // HDF5 writes the file's metadata from rank 0 alone (and reads it there: NetCDF asks for
  // collective metadata reads), so the flush journal of rank 0 keeps a kill from tearing it,
  // as on one rank; another rank's writes in place, if MPI-IO ever makes one, are held there
  // and committed by rank 0 with its own.
  void share(const Communicator& ranks);
  // Collective, in a record begun: this rank's block of a field, the points [start, start +
  // count) of the record (x, y, z; count zero where the rank has none), `values` in the
  // file's precision, x fastest.
  void write_block(const std::string& field, const std::array<std::size_t, 3>& start,
                   const std::array<std::size_t, 3>& count, const void* values);

  const std::string& path() const { return path_; }
  // Where the data is until close(): FILE.<pid>.partial beside FILE (beside the link's
  // target for a symbolic link), or FILE.<pid>.<n>.partial when that name was taken.
  const std::string& partial_path() const;
  // True after close() has put the file in place.
  bool closed() const;
  long records() const { return records_; }
  long series_records() const { return series_records_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  long records_ = 0;
  long series_records_ = 0;
};

// The z-planes of one HDF5 chunk of a field whose record has `planes` planes of
// `plane_bytes`: the whole record when it fits in 4 MiB, else as many whole planes as fit
// (at least one; a plane over 4 MiB is split into rows as well). Whole planes, so that a
// record is written in slabs of whole chunks straight from the staging slots, and reading a
// horizontal slice reads one chunk.
std::size_t output_chunk_planes(std::size_t plane_bytes, std::size_t planes);

// Checks before a run, before anything is allocated, that FILE can be written: creates
// missing parent folders; refuses a FILE that exists and is not a regular file (a device
// node, folder, pipe or socket), and a symbolic link whose target is missing or is not a
// regular file (a link to a regular file is written through); probes that the folder
// takes a new file by creating and removing a uniquely named probe file. It removes
// nothing it did not create. Throws std::runtime_error with one line,
// "output file FILE cannot be written: REASON".
void check_output_writable(const std::string& path);

}  // namespace bouss
