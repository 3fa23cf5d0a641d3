// A run that starts from another run's state (initial.from: config/case.hpp InitialFromFile;
// docs/case_file.md): the file's record read (io/state_file.hpp), refused with one line when
// its domain or boundaries differ from the case's, its fields carried onto the case's grid
// (grid/remap.hpp: T conservatively, u, v, w linearly), and the velocity projected to be
// divergence-free (not where the grids are the same: the file's fields are the state).
#pragma once

#include "config/case.hpp"
#include "io/state_file.hpp"

namespace bouss {

class Simulation;

// Reads the file of c.initial.from (a CaseError line for every refusal).
StateFile read_initial_state(const Case& c);
// Sets sim's state (every rank its block) from s, at t = 0 or the record's time.
void start_from_state(Simulation& sim, const Case& c, const StateFile& s);

}  // namespace bouss
