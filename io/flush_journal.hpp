// Flushes of an output file that a kill cannot tear (docs/output.md, "Kills").
//
// What a kill did before: HDF5 (1.10, under NetCDF-4) writes nothing between flushes, and in
// a flush (nc_sync) it writes the new chunks to fresh space, then rewrites its metadata in
// place, entry by entry in address order (object headers, the chunk-index B-tree nodes),
// the superblock last. A kill between two of those writes left old and new metadata mixed:
// the record being flushed unreadable ("NetCDF: HDF error", which also fails a read of the
// whole variable), and in a flush that splits a B-tree node, earlier records that had been
// complete for many flushes (all 64 first records of every field, at the first split). A
// kill inside one write (the kernel stops a write to the page cache between pages) tore a
// node and lost a flushed record's values.
//
// What it does now: every write HDF5 makes in place, that is, to a byte the file held at the
// last commit, is held in memory instead of written (reads of those bytes see it); writes to
// fresh space, where the new chunks and nodes go, go straight to the file, since nothing the
// file at the last commit refers to lies there. After each flush the writer commits: the
// held writes go to the journal PARTIAL.journal in one write with a checksum, then into the
// file, then the journal is marked spent. A kill before the journal is complete leaves the
// file exactly as the last commit left it; a kill while the held writes go into the file
// leaves a complete journal, which replay_flush_journal (bouss recover, a restart) applies.
//
// HDF5 writes through pwrite/pread/ftruncate of the C library; libbouss defines those
// functions (io/flush_journal_hooks.cpp), so they come before the C library's in the
// process, and passes every call straight to the system except those on a descriptor that a
// FlushJournal holds.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bouss {

// PARTIAL.journal: where the flushes of PARTIAL are committed.
std::string journal_path(const std::string& partial);

// The descriptor through which HDF5 writes the open file at `path` (found among HDF5's open
// files by device and inode), or -1 when HDF5 has no such file open through its default
// (sec2) driver.
int hdf5_descriptor_of(const std::string& path);
// HDF5 writes the metadata of the file at `path` (open in parallel HDF5 on every rank) from
// rank 0 alone (H5AC_METADATA_WRITE_STRATEGY__PROCESS_0_ONLY), where its flush journal holds
// the writes in place. Nothing where HDF5 is not parallel.
void hdf5_metadata_from_rank_0(const std::string& path);
// Every descriptor this process has open on the file at `path` (MPI-IO's, for a file every
// rank writes: io/netcdf_writer.hpp), in increasing order.
std::vector<int> descriptors_of(const std::string& path);

class FlushJournal {
 public:
  // Holds HDF5's in-place writes to `partial` through descriptor `fd` from now on, with the
  // file as it is now as the last commit. Creates PARTIAL.journal (replacing one that a
  // removed partial file of the same name left) and locks it for as long as this lives.
  // Throws std::runtime_error with the reason alone.
  FlushJournal(const std::string& partial, int fd);
  // The same for the file every rank writes (MPI-IO), through each of `fds`. Without
  // `keeps_journal` (every rank but the one that commits) no journal file is made: the held
  // writes go to the committing rank (take_held), which holds them too (hold) and commits
  // them all, and this rank then counts the file as it is as the last commit
  // (committed_elsewhere).
  FlushJournal(const std::string& partial, const std::vector<int>& fds, bool keeps_journal);
  // Stops holding writes and removes the journal; the writes held since the last commit are
  // dropped, so the file stays as the last commit left it. A journal whose writes could not
  // all be put into the file (commit failed there) is kept for replay_flush_journal.
  ~FlushJournal();
  FlushJournal(const FlushJournal&) = delete;
  FlushJournal& operator=(const FlushJournal&) = delete;

  // Makes the writes held since the last commit part of the file: journal, file, journal
  // spent. Throws std::runtime_error with the reason alone; the file then still reads as the
  // last commit left it, unless the reason says to run `bouss recover`.
  void commit();
  // Drops the writes held since the last commit (a flush that failed, or a close without
  // commit): the file stays as the last commit left it.
  void discard();
  // The writes held since the last commit, packed, and no longer held here.
  std::vector<char> take_held();
  // Another rank's packed held writes, held here after this one's own (committed together).
  void hold(const std::vector<char>& held);
  // Another rank committed: nothing is held here, and the file as it is is the last commit.
  void committed_elsewhere();
  // How many writes HDF5 has made through the descriptor (0 would mean HDF5 does not write
  // through the functions libbouss stands in for, and nothing is held).
  long writes_seen() const;

  // Test hook (BOUSS_TEST_KILL_IN_RECORD, io/netcdf_writer.cpp): raise SIGKILL before the
  // `write`-th write HDF5 makes from now on (1 = the next), or, with `in_commit`, after the
  // `write`-th write of the next commit into the file; the next commit disarms it.
  void kill_at_write(long write, bool in_commit);

  struct State;

 private:
  std::unique_ptr<State> s_;
};

// Completes in `partial` the flush its killed writer had committed to PARTIAL.journal and
// removes the journal (a journal that holds no complete commit is removed unapplied: its
// flush never began to change the file). Returns true when a flush was applied. Throws
// std::runtime_error (one line naming the file) when a live run still holds the journal, or
// the journal cannot be read or the file written.
bool replay_flush_journal(const std::string& partial);

}  // namespace bouss
