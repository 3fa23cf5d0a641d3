// One output stream of a run (config/case.hpp OutputStream; docs/output.md "Output streams"):
// its file, written by the IO thread, its schedule, and the staging of its records.
//
// A record is queued without waiting for the device: each field is packed on the device in
// slabs of whole z-planes (over the stream's region, in its precision; u_c, v_c, w_c as the
// means of the two faces), the profiles are computed on the device, each into a slot of
// the stream's staging ring, copied to pinned memory on the copy stream, and written by the
// IO thread (io/staging_ring.hpp). run/run.hpp decides when.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grid/backend.hpp"
#include "grid/box.hpp"
#include "grid/layout.hpp"
#include "config/case.hpp"
#include "config/diagnostics.hpp"
#include "io/io_thread.hpp"
#include "io/staging_ring.hpp"
#include "run/schedule.hpp"

namespace bouss {

class NetcdfWriter;
class Simulation;

// How a stream's records are cut into slots, from the case alone (the memory estimate
// uses it before anything exists).
struct StreamPlan {
  struct Item {
    std::string field;      // the name in the file
    std::string source;     // the simulation's array it is packed from ("u" for "u_c")
    int average_axis = -1;  // u_c, v_c, w_c: the mean of the two faces along this axis
    Box box;                // the points of `source` it takes (interior-relative)
    std::size_t plane_bytes = 0;  // one z-plane in the file's precision
    int slab_planes = 1;          // z-planes per slot: whole HDF5 chunks, about 16 MiB
  };
  std::vector<Item> items;
  std::size_t profile_bytes = 0;  // one record of the profiles (double)
  std::size_t slot_bytes = 0;
  int slots = 0;
  double record_bytes = 0;
};
StreamPlan plan_stream(const Case& c, const OutputStream& s, const Layout& layout);

// A checkpoint key of stream `index` of the case's list: "BASE" for the first (the keys of a
// single-stream run), "BASE.INDEX" for the others (docs/checkpoint.md).
std::string stream_checkpoint_key(const std::string& base, int index);

class StreamOutput {
 public:
  // `index`: the stream's place in the case's list (names its checkpoint keys).
  StreamOutput(const Case& c, const OutputStream& s, int index, const Backend& backend);
  ~StreamOutput();
  StreamOutput(const StreamOutput&) = delete;
  StreamOutput& operator=(const StreamOutput&) = delete;

  // Creates the partial file on the IO thread (on the writer rank alone under several
  // ranks: one file) and the staging ring; `layout` is the whole grid's, `series` describes
  // the diagnostics series' variables (model/diagnostics.hpp).
  void open(const Layout& layout, const std::vector<DiagnosticInfo>& series);
  // Queues one record of the current state (asynchronous; see the header comment).
  void write_record(const Simulation& sim);
  // Queues one record of the diagnostics series (a stream with diagnostics).
  void write_series(double time, const std::map<std::string, double>& values);
  // Copies the first records of an earlier file of the same stream (a restart).
  void copy_records_from(const std::string& source, long records, long series_records);
  void append_history(const std::string& text);
  // Waits for everything queued, and fsyncs the file.
  void flush_to_disk();
  // Closes the file under its final name and writes the XDMF description beside it (for a
  // stream with fields); returns {records, diagnostics records}. After the queue drained.
  std::pair<long, long> close();
  // {records, diagnostics records} written so far, after every job queued before (from a
  // job on the IO thread: at that point of the queue).
  std::pair<long, long> counts();

  const OutputStream& config() const { return stream_; }
  int index() const { return index_; }
  const std::string& file() const { return stream_.file; }
  const std::string& partial() const { return partial_; }
  // The XDMF sidecar close() wrote beside the file for ParaView ("" for none).
  const std::string& xdmf() const { return xdmf_; }
  Schedule& schedule() { return schedule_; }
  const Schedule& schedule() const { return schedule_; }
  std::int64_t last_step = -1;        // the step of the last record
  std::string superseded_partial;     // an earlier run's partial file this output replaces
  // Checkpoint keys of this stream (stream_checkpoint_key).
  std::string key(const std::string& base) const { return stream_checkpoint_key(base, index_); }

 private:
  Case case_;
  OutputStream stream_;
  int index_;
  Backend backend_;
  Schedule schedule_;
  OnIoThread<NetcdfWriter> writer_;
  std::string partial_, xdmf_;
  StreamPlan plan_;
  std::unique_ptr<StagingRing> ring_;
  static constexpr int writer_rank = 0;
  bool writes_ = true;  // this rank writes the file (the only rank, or the writer rank)
  void write_gathered_record(const Simulation& sim);
};

}  // namespace bouss
