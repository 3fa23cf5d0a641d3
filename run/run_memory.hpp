// What a run of a case allocates, estimated before anything is allocated: its Simulation's
// fields and pressure solver (model/simulation.hpp simulation_memory), on the backend (the
// device for CUDA) and on the host (pinned coarse levels), and its output's: the host copies a
// snapshot or checkpoint makes and each stream's staging ring. `check_memory` compares them
// with what the machine has.
#pragma once

#include "config/case.hpp"
#include "grid/backend.hpp"

namespace bouss {

struct MemoryEstimate {
  double backend_bytes = 0;  // what a Simulation allocates on its backend: fields, multigrid levels
  double host_bytes = 0;     // what it allocates on the host besides (pinned coarse levels of a GPU run)
  double output_bytes = 0;   // host memory that output takes: its staging slots, a checkpoint's arrays
  double output_device_bytes = 0;  // the device side of the output's staging slots (GPU runs)
  // Host memory at the peak: for the CPU backend, everything.
  double host_peak(const Backend& b) const { return (b.is_cuda() ? 0 : backend_bytes) + host_bytes + output_bytes; }
  double device_peak() const { return backend_bytes + output_device_bytes; }
};
MemoryEstimate estimate_memory(const Case& c, const Backend& backend);
// Throws CaseError "SOURCE: /grid/n: the run needs X of GPU memory, the device has Y free"
// (or of host memory) when the run would not fit.
void check_memory(const Case& c, const Backend& backend);

}  // namespace bouss
