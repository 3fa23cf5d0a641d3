// A file's writeback to the device, started while its writer goes on.
//
// What a writer puts into a file stays in the page cache until the kernel's dirty limits are
// passed (on a machine with 500 GB of memory: the whole output) or an fsync waits for it, and
// the disk sits idle meanwhile. A Writeback starts the device's writing of every dirty page of
// the file (Linux sync_file_range(SYNC_FILE_RANGE_WRITE)) from a thread of its own, since the
// call itself waits while the device's queue is full, so the disk writes one record while the
// writer fills the next.
//
// It also stands in for the fsyncs that MPI-IO makes of a file every rank writes at each
// HDF5 flush (MPI_File_sync, from nc_sync): each waited for the whole record to reach the disk
// while nothing else was written (1024x1024x512, 4 ranks: 31.2 s against 24.1 s for the disk
// to take the same bytes). Between defer_syncs and the Writeback's end, an fsync or fdatasync
// of one of the given descriptors starts the writeback and returns 0. The flushed records stay
// whole through a kill of the process (the page cache outlives it; io/flush_journal.hpp), and
// the writer's own fsync at close (fsync_file, a descriptor of its own) waits for every byte.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bouss {

class Writeback {
 public:
  // Opens `path` for its own descriptor; where it cannot (or off Linux), start() does nothing.
  explicit Writeback(const std::string& path);
  ~Writeback();  // ends the deferral and the thread; never waits for the device
  Writeback(const Writeback&) = delete;
  Writeback& operator=(const Writeback&) = delete;

  // Asks for every dirty page of the file to be written now; returns at once.
  void start();
  // From now on, an fsync or fdatasync of one of `descriptors` (this process's, on this file)
  // calls start() and returns 0.
  void defer_syncs(const std::vector<int>& descriptors);
  // Ends that: the descriptors' fsyncs wait again (before the descriptors close).
  void end_deferral();
  // How many times start() was called (directly or by a deferred fsync).
  long starts() const;

  struct State;  // io/writeback.cpp

 private:
  std::shared_ptr<State> s_;
};

}  // namespace bouss
