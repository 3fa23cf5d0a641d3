#include "run/stream_output.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "io/io_thread.hpp"
#include "io/netcdf_handles.hpp"
#include "io/netcdf_writer.hpp"
#include "io/xdmf.hpp"
#include "grid/gather.hpp"
#include "parallel/communicator.hpp"
#include "physics/profiles.hpp"
#include "model/simulation.hpp"

namespace bouss {

std::pair<std::string, int> field_source(const std::string& field) {
  const FieldInfo& f = field_named(field);
  if (!f.mean_of) return {field, -1};
  return {f.mean_of, int(field_named(f.mean_of).stagger) - 1};
}

StreamPlan plan_stream(const Case& c, const OutputStream& s, const Layout& layout) {
  StreamPlan plan;
  const std::size_t elem = value_bytes(s.precision);
  std::size_t slot = 0;
  int record_slots = 0;
  std::vector<std::string> names = s.fields;
  for (const std::string& m : s.average.moments) names.push_back(m);
  for (const std::string& name : names) {
    StreamPlan::Item item;
    const bool moment = name.find('*') != std::string::npos;
    item.field = moment ? moment_variable(name) : name;
    if (moment) item.moment = name;
    else std::tie(item.source, item.average_axis) = field_source(name);
    // The points of the region: a mean of faces covers the cells; a face field one point
    // more along its axis (across a plane: the cell's two faces). A moment: the cells.
    const Stagger stagger = moment ? Stagger::centre : field_named(item.field).stagger;
    item.box = layout.interior(stagger);
    if (!s.region.whole()) {
      const int a = s.region.axis;
      item.box.lo[a] = s.region.index;
      item.box.hi[a] = s.region.index + 1 + (int(stagger) == a + 1 ? 1 : 0);
    }
    item.plane_bytes = elem * std::size_t(item.box.extent(0)) * std::size_t(item.box.extent(1));
    const int planes = item.box.extent(2);
    item.slab_planes = staging_slab_planes(item.plane_bytes, int(output_chunk_planes(item.plane_bytes, planes)), planes);
    slot = std::max(slot, item.plane_bytes * std::size_t(item.slab_planes));
    record_slots += (planes + item.slab_planes - 1) / item.slab_planes;
    plan.record_bytes += double(item.plane_bytes) * planes;
    plan.items.push_back(item);
  }
  plan.profile_bytes = sizeof(double) * profile_values(s.profiles, c.n[2]);
  plan.record_bytes += double(plan.profile_bytes);
  record_slots += plan.profile_bytes > 0 ? 1 : 0;
  plan.slot_bytes = std::max(slot, plan.profile_bytes);
  plan.slots = staging_slot_count(plan.slot_bytes, record_slots);
  return plan;
}

Box rank_slab(const StreamPlan::Item& item, const Decomposition& d, int rank, int k0, int nk) {
  Box slab = item.box;
  slab.lo[2] = item.box.lo[2] + k0;
  slab.hi[2] = slab.lo[2] + nk;
  const Stagger st = item.moment.empty() ? field_named(item.field).stagger : Stagger::centre;
  return intersect(slab, supplied_box_of_rank(d, rank, st));
}

std::pair<std::size_t, int> rank_ring(const StreamPlan& plan, const OutputStream& s, const Decomposition& d, int rank) {
  const std::size_t elem = value_bytes(s.precision);
  std::size_t slot = std::max(plan.profile_bytes, elem);
  int record_slots = plan.profile_bytes > 0 ? 1 : 0;
  for (const StreamPlan::Item& item : plan.items)
    for (int k0 = 0; k0 < item.box.extent(2); k0 += item.slab_planes) {
      const Box mine = rank_slab(item, d, rank, k0, std::min(item.slab_planes, item.box.extent(2) - k0));
      if (mine.empty()) continue;
      slot = std::max(slot, elem * std::size_t(mine.cells()));
      ++record_slots;
    }
  return {slot, staging_slot_count(slot, std::max(record_slots, 1))};
}

StreamOutput::StreamOutput(const Case& c, const OutputStream& s, int index, const Backend& backend)
    : case_(c), stream_(s), index_(index), backend_(backend), schedule_(s.interval, s.interval_steps) {}

StreamOutput::~StreamOutput() = default;

std::string stream_checkpoint_key(const std::string& base, int index) {
  return index == 0 ? base : base + "." + std::to_string(index);
}

void StreamOutput::open(const Layout& layout, const std::vector<DiagnosticInfo>& series) {
  const Communicator& ranks = backend_.ranks();
  writes_ = ranks.rank() == writer_rank;
  by_block_ = ranks_write_one_file(ranks);
  if (writes_ && by_block_) {
    // The fields' chunks cut to the blocks along each axis the ranks cut evenly. (Where the
    // blocks differ, some chunks would hold two ranks' points and others one's: HDF5 1.10's
    // collective chunk writes then hung, three ranks over 32 cells, 16 + 8 + 8.)
    const Decomposition& d = *rank_grid(case_, ranks).decomposition;
    std::array<int, 2> block{0, 0};
    for (int a = 0; a < 2; ++a) {
      const std::vector<int> cuts = Decomposition::cuts(d.global_n[a], d.dims[a]);
      bool even = true;
      for (std::size_t p = 1; p < cuts.size(); ++p) even = even && cuts[p] - cuts[p - 1] == cuts[1] - cuts[0];
      if (even && d.dims[a] > 1) block[std::size_t(a)] = cuts[1] - cuts[0];
    }
    writer_.emplace(stream_.file, case_, stream_, NetcdfWriter::Creation::shared_later, block);
  } else if (writes_) {
    writer_.emplace(stream_.file, case_, stream_);
  } else if (by_block_) {
    writer_.emplace(NetcdfWriter::Joining{}, stream_.file, case_, stream_);
  }
  if (writes_ || by_block_)
    partial_ = writer_.call([&](NetcdfWriter& w) {
      w.describe_diagnostics(series);
      return w.partial_path();
    });
  plan_ = plan_stream(case_, stream_, layout);
  // Each rank's ring holds its own blocks (made at the first record, from the cut).
  if (!by_block_) ring_ = std::make_unique<StagingRing>(backend_, plan_.slot_bytes, plan_.slots);
}

void StreamOutput::share_once() {
  if (!by_block_ || shared_) return;
  shared_ = true;
  writer_.post([io = &backend_.ranks().io()](NetcdfWriter& w) { w.share(*io); }, IoThread::Failure::kept);
}

namespace {

// Queues the write of a filled slot: the IO thread waits for its copy, writes it, frees it.
template <class Write>
void post_slot(OnIoThread<NetcdfWriter>& writer, StagingRing& ring, StagingRing::Slot& slot, std::size_t bytes,
               Write write) {
  ring.queue_copy(slot, bytes);
  writer.post([&slot, ring = &ring, bytes, write = std::move(write)](NetcdfWriter& w) {
    slot.copied.wait();
    try {
      write(w, slot.host);
    } catch (...) {
      ring->release(slot, 0);
      throw;
    }
    ring->release(slot, bytes);
  });
}

// A failure met while a record is queued under several ranks: kept (what fails later is
// skipped) until the ranks agree on the first one at the record's start and end.
struct RecordFailure {
  const Communicator& ranks;
  std::string failure;
  explicit RecordFailure(const Communicator& r) : ranks(r) {}
  void guarded(const std::function<void()>& f) {
    if (!failure.empty()) return;
    try {
      f();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  void agree() const {
    const std::string first = first_failure(ranks, !failure.empty(), failure);
    if (!first.empty()) throw std::runtime_error(first);
  }
};

}  // namespace

void StreamOutput::begin_averaging(Simulation& sim) {
  if (stream_.average.enabled) average_ = std::make_unique<StreamAverage>(stream_, plan_, sim);
}

void StreamOutput::at_step_start(const Simulation& sim) {
  if (average_) average_->at_step_start(sim, schedule_, case_.time.land_on_outputs);
}

// Asynchronous: no device sync here (but under several ranks: see write_gathered). The next
// step's kernels come after the pack kernels on the step's stream, so they may overwrite
// the fields at once. An averaged stream's record is made from its sums after the window's
// closing sample, and a new window opens after it.
void StreamOutput::write_record(const Simulation& sim) {
  RecordSource source;
  if (average_) {
    if (!average_->has_samples()) {  // the start (or a record at the step its window opened)
      last_step = sim.steps_done();
      return;
    }
    average_->close(sim);
    source.bounds = std::array<double, 2>{average_->window_start(), sim.time()};
    source.pack = [this](std::size_t i, const Box& box, void* dst, bool single) {
      if (single) average_->item_into(i, box, static_cast<float*>(dst));
      else average_->item_into(i, box, static_cast<double*>(dst));
    };
    source.profiles = [this](double* dst) { average_->profiles_into(dst); };
  } else {
    source.pack = [this, &sim](std::size_t i, const Box& box, void* dst, bool single) {
      const StreamPlan::Item& item = plan_.items[i];
      if (single) sim.pack(item.source, box, static_cast<float*>(dst), item.average_axis);
      else sim.pack(item.source, box, static_cast<double*>(dst), item.average_axis);
    };
    source.profiles = [this, &sim](double* dst) { sim.profiles_into(stream_.profiles, dst); };
  }
  if (backend_.ranks().alone()) write_alone(sim, source);
  else if (by_block_) write_blocks(sim, source);
  else write_gathered(sim, source);
  last_step = sim.steps_done();
  if (average_) average_->open(sim);
}

void StreamOutput::write_alone(const Simulation& sim, const RecordSource& source) {
  const bool single = stream_.precision == Precision::single_precision;
  writer_.post([time = sim.time(), step = sim.steps_done(), bounds = source.bounds](NetcdfWriter& w) {
    w.begin_record(time, {{"step", double(step)}}, bounds);
  });
  if (plan_.profile_bytes > 0) {
    StagingRing::Slot& slot = ring_->acquire();
    source.profiles(static_cast<double*>(slot.device));
    post_slot(writer_, *ring_, slot, plan_.profile_bytes,
              [](NetcdfWriter& w, const void* host) { w.write_profiles(static_cast<const double*>(host)); });
  }
  for (std::size_t i = 0; i < plan_.items.size(); ++i) {
    const StreamPlan::Item& item = plan_.items[i];
    for (int k0 = 0; k0 < item.box.extent(2); k0 += item.slab_planes) {
      const int nk = std::min(item.slab_planes, item.box.extent(2) - k0);
      Box slab = item.box;
      slab.lo[2] = item.box.lo[2] + k0;
      slab.hi[2] = slab.lo[2] + nk;
      StagingRing::Slot& slot = ring_->acquire();
      source.pack(i, slab, slot.device, single);
      post_slot(writer_, *ring_, slot, item.plane_bytes * std::size_t(nk),
                [k0, nk, field = item.field](NetcdfWriter& w, const void* host) { w.write_slab(field, k0, nk, host); });
    }
  }
  writer_.post([](NetcdfWriter& w) { w.end_record(); });
}

// Under several ranks: every rank packs the points of each slab it holds and copies them to
// the host, the writer rank gathers them and assembles the slab in a slot of its ring (a
// slab at a time, within the ring's memory), and the IO thread writes it from there. The
// ranks wait for their copies: the gather needs the values on the host.
//
// The writer's failure (a full disk: its IO thread's exception, rethrown by a post or while
// it waits for a slot) must not leave the other ranks waiting in a gather: the ranks agree
// at the record's start whether the writer has failed already, a failure met during the
// record is kept while the writer goes on taking part in the gathers (with nothing of its own
// and nothing written), and at the record's end every rank stops with the writer's line.
void StreamOutput::write_gathered(const Simulation& sim, const RecordSource& source) {
  const Communicator& ranks = backend_.ranks();
  const bool single = stream_.precision == Precision::single_precision;
  const std::size_t elem = single ? sizeof(float) : sizeof(double);
  RecordFailure record(ranks);
  const std::string& failure = record.failure;
  const auto writer_does = [&](const std::function<void()>& f) {
    if (writes_) record.guarded(f);
  };
  const auto agree = [&] { record.agree(); };
  writer_does([] { IoThread::instance().check(); });
  agree();
  writer_does([&] {
    writer_.post([time = sim.time(), step = sim.steps_done(), bounds = source.bounds](NetcdfWriter& w) {
      w.begin_record(time, {{"step", double(step)}}, bounds);
    });
  });
  // A slot of the ring; the writer that failed waiting for one takes none (nullptr).
  const auto acquire = [&]() -> StagingRing::Slot* {
    StagingRing::Slot* slot = nullptr;
    if (!writes_) return &ring_->acquire();
    writer_does([&] { slot = &ring_->acquire(); });
    return slot;
  };
  if (plan_.profile_bytes > 0) {
    StagingRing::Slot* slot = acquire();
    // Every rank's levels (a snapshot's: collective), into a slot, or a buffer of their own
    // on a writer without one.
    void* spare = slot ? nullptr : backend_.allocate(plan_.profile_bytes);
    source.profiles(static_cast<double*>(slot ? slot->device : spare));
    if (spare) backend_.deallocate(spare);
    if (slot && writes_ && failure.empty()) {
      writer_does([&] {
        post_slot(writer_, *ring_, *slot, plan_.profile_bytes,
                  [](NetcdfWriter& w, const void* host) { w.write_profiles(static_cast<const double*>(host)); });
      });
    } else if (slot) {
      ring_->queue_copy(*slot, 0);
      slot->copied.wait();
      ring_->release(*slot, 0);
    }
  }
  const Decomposition& d = *sim.grid().decomposition;
  for (std::size_t i = 0; i < plan_.items.size(); ++i) {
    const StreamPlan::Item& item = plan_.items[i];
    const Stagger st = item.moment.empty() ? field_named(item.field).stagger : Stagger::centre;
    for (int k0 = 0; k0 < item.box.extent(2); k0 += item.slab_planes) {
      const int nk = std::min(item.slab_planes, item.box.extent(2) - k0);
      Box slab = item.box;  // in the whole grid's indices
      slab.lo[2] = item.box.lo[2] + k0;
      slab.hi[2] = slab.lo[2] + nk;
      // This rank's points of the slab, in its own indices.
      const Box mine = intersect(slab, supplied_box_of_rank(d, ranks.rank(), st));
      Box local = mine;
      for (int a = 0; a < 3; ++a) local.lo[a] -= d.offset[a], local.hi[a] -= d.offset[a];
      StagingRing::Slot* slot = acquire();
      const std::size_t bytes = mine.empty() || !slot ? 0 : elem * std::size_t(mine.cells());
      if (bytes) source.pack(i, local, slot->device, single);
      if (slot) {
        ring_->queue_copy(*slot, bytes);
        slot->copied.wait();
      }
      std::vector<char> pieces;
      ranks.gatherv(slot ? slot->host : nullptr, bytes, &pieces, writer_rank);
      if (!writes_ || !failure.empty()) {
        if (slot) ring_->release(*slot, 0);
        continue;
      }
      // The writer: each rank's piece into its place in the slab (x fastest).
      place_pieces(pieces.data(), elem, slab, d, ranks.size(), st, static_cast<char*>(slot->host));
      const std::size_t slab_bytes = item.plane_bytes * std::size_t(nk);
      writer_does([&] {
        try {
          writer_.post([slot, ring = ring_.get(), slab_bytes, k0, nk, field = item.field](NetcdfWriter& w) {
            try {
              w.write_slab(field, k0, nk, slot->host);
            } catch (...) {
              ring->release(*slot, 0);
              throw;
            }
            ring->release(*slot, slab_bytes);
          });
        } catch (...) {
          ring_->release(*slot, 0);  // never queued
          throw;
        }
      });
    }
  }
  writer_does([&] { writer_.post([](NetcdfWriter& w) { w.end_record(); }); });
  agree();
}

// Under several ranks with parallel NetCDF: every rank packs its points of each slab into a
// slot of its own ring and its IO thread writes them as its block of the slab, in the same
// collective call as every other rank's (NetcdfWriter::write_block; a rank without points of
// the slab takes part with none). No rank holds more than its own points. The profiles,
// computed on every rank, are written by rank 0's.
//
// A failure of the writers is agreed among the IO threads (each job fails on every rank or
// on none: NetcdfWriter::share), and each rank's time loop meets it in a post or while it
// waits for a slot; the ranks agree at the record's start and end, as write_gathered does, so
// that every rank stops with the same line at the same point.
void StreamOutput::write_blocks(const Simulation& sim, const RecordSource& source) {
  const Communicator& ranks = backend_.ranks();
  const Decomposition& d = *sim.grid().decomposition;
  const bool single = stream_.precision == Precision::single_precision;
  const std::size_t elem = single ? sizeof(float) : sizeof(double);
  RecordFailure record(ranks);
  const auto guarded = [&](const std::function<void()>& f) { record.guarded(f); };
  const auto agree = [&] { record.agree(); };
  if (!ring_) {
    const auto [slot, slots] = rank_ring(plan_, stream_, d, ranks.rank());
    ring_ = std::make_unique<StagingRing>(backend_, slot, slots);
  }
  guarded([] { IoThread::instance().check(); });
  agree();
  share_once();
  guarded([&] {
    writer_.post([time = sim.time(), step = sim.steps_done(), bounds = source.bounds](NetcdfWriter& w) {
      w.begin_record(time, {{"step", double(step)}}, bounds);
    });
  });
  if (plan_.profile_bytes > 0) {
    // Every rank's levels (a snapshot's are collective); rank 0's are written.
    StagingRing::Slot* slot = nullptr;
    guarded([&] { slot = &ring_->acquire(); });
    void* spare = slot ? nullptr : backend_.allocate(plan_.profile_bytes);
    source.profiles(static_cast<double*>(slot ? slot->device : spare));
    if (spare) backend_.deallocate(spare);
    bool posted = false;
    if (slot) guarded([&] {
      post_slot(writer_, *ring_, *slot, plan_.profile_bytes,
                [](NetcdfWriter& w, const void* host) { w.write_profiles(static_cast<const double*>(host)); });
      posted = true;
    });
    if (slot && !posted) {
      ring_->queue_copy(*slot, 0);
      slot->copied.wait();
      ring_->release(*slot, 0);
    }
  }
  for (std::size_t i = 0; i < plan_.items.size(); ++i) {
    const StreamPlan::Item& item = plan_.items[i];
    for (int k0 = 0; k0 < item.box.extent(2); k0 += item.slab_planes) {
      const Box mine = rank_slab(item, d, ranks.rank(), k0, std::min(item.slab_planes, item.box.extent(2) - k0));
      std::array<std::size_t, 3> start{}, count{};
      if (!mine.empty())
        for (int a = 0; a < 3; ++a)
          start[a] = std::size_t(mine.lo[a] - item.box.lo[a]), count[a] = std::size_t(mine.extent(a));
      guarded([&] {
        if (mine.empty()) {  // a part in the collective write, with nothing of its own
          writer_.post([field = item.field](NetcdfWriter& w) {
            static const double none = 0;
            w.write_block(field, {0, 0, 0}, {0, 0, 0}, &none);
          });
          return;
        }
        Box local = mine;  // in this rank's own indices
        for (int a = 0; a < 3; ++a) local.lo[a] -= d.offset[a], local.hi[a] -= d.offset[a];
        StagingRing::Slot& slot = ring_->acquire();
        source.pack(i, local, slot.device, single);
        post_slot(writer_, *ring_, slot, elem * std::size_t(mine.cells()),
                  [field = item.field, start, count](NetcdfWriter& w, const void* host) {
                    w.write_block(field, start, count, host);
                  });
      });
    }
  }
  guarded([&] { writer_.post([](NetcdfWriter& w) { w.end_record(); }); });
  agree();
}

// Where every rank writes the file, a failure of the writers (which fail together) is not
// met here but at the next agreed check (each step's, or a record's): a rank that met it here
// alone would leave the others waiting at that check.
void StreamOutput::write_series(double time, const std::map<std::string, double>& values) {
  if (!writes_ && !by_block_) return;
  share_once();
  writer_.post([time, values](NetcdfWriter& w) { w.write_series(time, values); },
               by_block_ ? IoThread::Failure::kept : IoThread::Failure::rethrow);
}

// Before share_once(), the writer rank's alone (a restart's copy).
void StreamOutput::copy_records_from(const std::string& source, long records, long series_records) {
  if (!writes_) return;
  if (shared_) throw std::logic_error("copy_records_from after the first record");
  writer_.call([&](NetcdfWriter& w) { w.copy_records_from(source, records, series_records); });
}

void StreamOutput::append_history(const std::string& text) {
  if (!writes_ && !shared_) return;
  writer_.call([&](NetcdfWriter& w) { w.append_history(text); });
}

void StreamOutput::flush_to_disk() {
  if (!writes_ && !by_block_) return;
  share_once();
  writer_.call([](NetcdfWriter& w) { w.flush_to_disk(); });
}

std::pair<long, long> StreamOutput::counts() {
  if (!writes_ && !by_block_) return {0, 0};
  return writer_.call([](NetcdfWriter& w) { return std::make_pair(w.records(), w.series_records()); });
}

std::pair<long, long> StreamOutput::close() {
  if (!writes_ && !by_block_) return {0, 0};
  share_once();
  const auto counts = writer_.call([](NetcdfWriter& w) {
    w.close();
    return std::make_pair(w.records(), w.series_records());
  });
  if (!writes_) return counts;
  if (!stream_.fields.empty()) {
    // Beside it, the XDMF description ParaView opens (the NetCDF file is complete without it).
    const std::string xdmf = xdmf_path_for(stream_.file);
    try {
      IoThread::instance().call([&] { write_xdmf(stream_.file, xdmf); });
      xdmf_ = xdmf;
    } catch (const std::exception& e) {
      spdlog::warn("no {}: {}", xdmf, e.what());
    }
  }
  return counts;
}

}  // namespace bouss
