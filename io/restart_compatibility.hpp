// Whether a checkpoint written under one case can continue under another. A restart may
// change when the run stops and what it writes (time, output, checkpoint), how it started
// (initial), its name, description and backend; everything that decides the next step's
// arithmetic must be identical: the grid, the physics, every boundary condition, the
// precision and every pressure-solver setting.
//
// A benchmark that starts from a checkpoint's flow (bouss bench --from) needs less: the
// same flow problem (grid, physics, boundaries), timed under any precision and pressure solver.
#pragma once

#include <string>
#include <vector>

#include "io/case.hpp"

namespace bouss {

enum class RestartScope {
  continuation,  // the run goes on bit for bit: everything that decides a step's arithmetic
  flow_state,    // the checkpoint's flow starts another run of the same problem: precision and pressure may differ
};

// Why a checkpoint written by `saved` cannot continue as `now`; empty when it can.
// One line per difference, naming the JSON path and both values, e.g.
//   /grid/n: the checkpoint has [32,32,16], the case [64,64,32]
// Numbers are compared exactly (bit for bit) and shown in their shortest round-trip form.
std::vector<std::string> restart_differences(const Case& saved, const Case& now,
                                             RestartScope scope = RestartScope::continuation);

}  // namespace bouss
