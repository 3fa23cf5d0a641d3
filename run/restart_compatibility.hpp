// Whether a checkpoint written under one case can continue under another. A restart may
// change when the run stops and what it writes (time, output, checkpoint), how it started
// (initial), its name, description and backend; everything that decides the next step's
// arithmetic must be identical: the grid, the physics, every boundary condition, the
// precision and every pressure-solver setting.
//
// A benchmark that starts from a checkpoint's flow (bouss bench --from) needs less: the
// same flow problem (grid, physics, boundaries), timed under any precision and pressure solver.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/case.hpp"

namespace bouss {

enum class RestartScope {
  continuation,  // the run goes on bit for bit: everything that decides a step's arithmetic
  flow_state,    // the checkpoint's flow starts another run of the same problem: precision and pressure may differ
  // another run's state carried onto this grid (initial.from): only the domain and the
  // boundaries must be the same; the grid, the physics, the precision and the solver may differ
  initial_state,
};

// Why a checkpoint written by `saved` cannot continue as `now`; empty when it can.
// One line per difference, naming the JSON path and both values, e.g.
//   /grid/n: the checkpoint has [32,32,16], the case [64,64,32]
// Numbers are compared exactly (bit for bit) and shown in their shortest round-trip form.
// The pressure solver compared is the one each run resolves (model/pressure_plan.hpp): for the
// checkpoint, `saved_solver` where it recorded one (checkpoint_solver_key), else what `saved`
// resolves to today. Where `now` leaves the choice to auto, a different solver is no
// difference but restart_solver_change's warning.
// `saved_name` names the saved side in the lines ("the checkpoint", or the file a run starts from).
std::vector<std::string> restart_differences(const Case& saved, const Case& now,
                                             RestartScope scope = RestartScope::continuation,
                                             const std::string& saved_solver = "",
                                             const std::string& saved_name = "the checkpoint");
// The warning of a restart whose case leaves the solver to auto where auto now picks another
// than the checkpoint's run used (e.g. a solver added since): the continuation is not bit for bit.
std::optional<std::string> restart_solver_change(const Case& saved, const Case& now, const std::string& saved_solver = "");
// The Checkpoint::text key of the pressure solver the checkpointing run resolved.
constexpr const char* checkpoint_solver_key = "pressure_solver";

}  // namespace bouss
