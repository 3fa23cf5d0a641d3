// What cutting a grid over ranks costs this rank, accumulated since the last reset: the halo
// exchanges (grid/halo.cu), the direct solve's transposes (solver/direct/transpose_steps.cu) and
// the pressure solve gathered onto rank 0 (solver/gathered_solver.cpp), as wall time on the
// host around each (timed, an exchange first waits for the device work queued before it, then
// for its own packing, messages and unpacking, so its time is what the rank spent on it,
// waiting for the neighbour included) and the bytes this rank sent. `bouss bench` under
// several ranks times them in steps of their own.
#pragma once

namespace bouss {

struct RankCosts {
  // Whether the exchanges and transposes wait for their work to time it (bouss bench's cost
  // steps); otherwise they only count messages and bytes, and NCCL's stay queued on the
  // stream as a run takes them.
  bool timed = false;
  double halo_seconds = 0, halo_bytes = 0;
  long halo_exchanges = 0;  // messages sent
  // Of halo_seconds, the packing and unpacking kernels' own time (CUDA events on the GPU),
  // without the messages and the waiting for the neighbour.
  double halo_pack_seconds = 0;
  double gathered_solve_seconds = 0;
  // The distributed direct solve's transposes (solver/direct/transpose_steps.cu): all-to-alls.
  double transpose_seconds = 0, transpose_bytes = 0;
  // Reductions combined across the ranks and the run's per-step agreements (Communicator's
  // allgather and any_bits), each waiting for the slowest rank.
  double reduction_seconds = 0;
  long reductions = 0;
};

// This process's (one rank per process).
RankCosts& rank_costs();

}  // namespace bouss
