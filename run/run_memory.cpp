// What a run of a case allocates (run/run_memory.hpp).
#include "run/run_memory.hpp"

#include <algorithm>

#include "grid/field_ops.hpp"
#include "io/file_util.hpp"
#include "io/netcdf_handles.hpp"
#include "io/staging_ring.hpp"
#include "model/simulation.hpp"
#include "parallel/communicator.hpp"
#include "run/stream_output.hpp"

namespace bouss {

MemoryEstimate estimate_memory(const Case& c, const Backend& backend) {
  const SimulationMemory sim = simulation_memory(c, backend);
  MemoryEstimate m;
  m.backend_bytes = sim.backend_bytes;
  m.host_bytes = sim.host_bytes;
  // This rank's block (the whole grid on one rank).
  const Grid block = rank_grid(c, backend.ranks()), g = block.whole();
  // A checkpoint's arrays all together on the host, or one field's values (the initial
  // condition's, a restart's array); on a GPU they come and go a slab at a time through two
  // scratch buffers of the device (grid/field_ops.hpp box_values).
  const double interior = double(block.layout.cells()) * sizeof(double) * 1.05;  // faces: n + 1 points
  const double checkpoint =
      c.checkpoint.enabled() ? double(Simulation::state_names(plan_pressure(c)).size()) * interior : 0;
  m.output_bytes = std::max(interior, checkpoint);
  if (backend.is_cuda()) m.output_device_bytes += 2 * std::min(interior, double(box_values_slab_bytes));
  // Each stream's staging ring (run/stream_output.hpp, io/staging_ring.hpp).
  // Where every rank writes its own block, each rank's ring holds its share (rank_ring).
  const Communicator& ranks = backend.ranks();
  const bool by_block = ranks_write_one_file(ranks);
  for (const OutputStream& s : c.output.streams) {
    const StreamPlan plan = plan_stream(c, s, g.layout);
    const auto [slot, slots] = by_block ? rank_ring(plan, s, *block.decomposition, ranks.rank())
                                        : std::make_pair(plan.slot_bytes, plan.slots);
    const auto [device, pinned] = StagingRing::memory(backend, slot, slots);
    m.output_device_bytes += backend.is_cuda() ? device : 0;
    m.output_bytes += backend.is_cuda() ? pinned : device;
    // An averaged stream's sums (run/stream_average.hpp), and their copy in a checkpoint.
    const double sums = StreamAverage::bytes(s, plan, block);  // this rank's share of them
    (backend.is_cuda() ? m.output_device_bytes : m.output_bytes) += sums;
    // A checkpoint's host copy: the share, or on rank 0 the whole sums it gathers where the
    // ranks cannot write one file.
    const bool gathers = !by_block && !ranks.alone() && ranks.rank() == 0;
    if (c.checkpoint.enabled()) m.output_bytes += sums + (gathers ? StreamAverage::bytes(s, plan, g) : 0);
  }
  return m;
}

void check_memory(const Case& c, const Backend& backend) {
  const MemoryEstimate m = estimate_memory(c, backend);
  // Reductions' scratch, CUDA graphs and the runtime's own allocations: a margin.
  constexpr double margin = 64.0 * (1 << 20);
  auto refuse = [&](const char* what, const char* who, double need, double have) {
    throw CaseError(c.source + ": /grid/n: the run needs " + format_bytes(need) + " of " + what + ", " + who +
                    " has " + format_bytes(have) + " free");
  };
  if (backend.is_cuda()) {
    const double device_free = double(backend.available_bytes());
    if (m.device_peak() + margin > device_free) refuse("GPU memory", "the device", m.device_peak() + margin, device_free);
  }
  const double host_free = double(Backend::host_available_bytes());
  if (m.host_peak(backend) + margin > host_free) refuse("host memory", "the host", m.host_peak(backend) + margin, host_free);
}

}  // namespace bouss
