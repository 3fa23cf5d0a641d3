// One output stream of a run (config/case.hpp OutputStream; docs/output.md "Output streams"):
// its file, written by the IO thread, its schedule, and the staging of its records.
//
// A record is queued without waiting for the device: each field is packed on the device in
// slabs of whole z-planes (over the stream's region, in its precision; u_c, v_c, w_c as the
// means of the two faces), the profiles are computed on the device, each into a slot of
// the stream's staging ring, copied to pinned memory on the copy stream, and written by the
// IO thread (io/staging_ring.hpp). run/run.hpp decides when.
//
// Under several ranks every rank writes its own block of each slab into the one file, from
// its own ring (parallel NetCDF-4, collective writes: NetcdfWriter::share), where the build
// has parallel NetCDF and MPI gives MPI_THREAD_MULTIPLE; otherwise the writer rank gathers
// each slab and writes it alone (the log says which).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
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
#include "run/stream_average.hpp"

namespace bouss {

class NetcdfWriter;
class Simulation;

// How a stream's records are cut into slots, from the case alone (the memory estimate
// uses it before anything exists).
struct StreamPlan {
  struct Item {
    std::string field;      // the name in the file
    std::string source;     // the simulation's array it is packed from ("u" for "u_c")
    std::string moment;     // an averaged stream's moment ("w_c*T"; source empty), or empty
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
// Where every rank writes its own block (StreamOutput under parallel NetCDF): the points of
// rank `rank` of the cut `d` in planes [k0, k0 + nk) of plan item `item` (the whole grid's
// indices), and the staging ring that rank needs, {slot bytes, slots}: slots of its largest
// block, as many as a ring takes for its share of a record.
Box rank_slab(const StreamPlan::Item& item, const Decomposition& d, int rank, int k0, int nk);
std::pair<std::size_t, int> rank_ring(const StreamPlan& plan, const OutputStream& s, const Decomposition& d, int rank);
// The array an output field is packed from, and the axis of the faces it averages (-1: none):
// {"u", 0} for "u_c", {"T", -1} for "T".
std::pair<std::string, int> field_source(const std::string& field);

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
  // An averaged stream (OutputAverage): its sums, cleared, and its first window opened at the
  // simulation's state (after open(); a restart may then take a checkpoint's window:
  // average()).
  void begin_averaging(Simulation& sim);
  StreamAverage* average() { return average_.get(); }
  // At the start of each step (Simulation::at_step_start): an averaged stream's sample.
  void at_step_start(const Simulation& sim);
  // Queues one record of the current state (asynchronous; see the header comment). An
  // averaged stream's record is the window's means, written when it holds a sample (not at
  // the start), and a new window opens.
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
  std::unique_ptr<StreamAverage> average_;
  // What a record is made of: the state (snapshots) or a window's means (an averaged stream).
  struct RecordSource {
    std::optional<std::array<double, 2>> bounds;  // the window's start and end
    // Plan item i's values over a box of this rank's points (its own indices) into dst
    // (backend memory) in float (single) or double.
    std::function<void(std::size_t i, const Box& box, void* dst, bool single)> pack;
    std::function<void(double* dst)> profiles;  // the stream's profiles into dst
  };
  void write_alone(const Simulation& sim, const RecordSource& source);
  void write_gathered(const Simulation& sim, const RecordSource& source);
  void write_blocks(const Simulation& sim, const RecordSource& source);
  // Every rank's writer opens the file the writer rank made (NetcdfWriter::share), once,
  // before the first record, series record, flush or close.
  void share_once();
  static constexpr int writer_rank = 0;
  bool writes_ = true;     // this rank writes the file (the only rank, or the writer rank)
  bool by_block_ = false;  // every rank writes its block of each record (parallel NetCDF)
  bool shared_ = false;    // share_once() done
};

}  // namespace bouss
