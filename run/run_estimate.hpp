// What a run of a case will cost, before it runs (bouss check's `runs:` line): its steps to
// the end, from the case's limits on dt and a velocity scale for its developed flow, and
// its wall time on a backend, from a few steps of the case timed from rest.
#pragma once

#include <algorithm>
#include <string>

#include "config/case.hpp"
#include "grid/backend.hpp"

namespace bouss {

struct StepEstimate {
  double steps = 0;    // to the end of the run
  double dt = 0;       // the typical step of the estimate (0 when the run ends by time.steps alone)
  bool exact = false;  // the count is the case's own (time.steps, or time.end over a fixed time.dt)
  std::string rule;    // what sets dt, in words
};

// The developed flow's advective rate max(|u|/dx + |v|/dy + |w|/dz) is taken as a third of
// the free-fall velocity U = sqrt(|b_T| dT H) (dT the case's temperature contrast, H the
// box's height) over each axis's mean spacing, axes of one cell left out; dt is the smallest
// of the case's diffusive and buoyancy limits and cfl over that rate. On the shipped cases
// this is within 1.4x of the steps their runs take: convection at Ra = 1e5 and 1e7 (whose
// interior moves at about a quarter of U) and the lock exchange (about a half).
StepEstimate estimate_steps(const Case& c);

struct TrialTiming {
  double setup_seconds = 0;  // the run's construction and start: allocation, plans, initial state
  long steps = 0;            // the steps timed, from rest
  double seconds = 0;        // their time
  double tail_ms = 0;        // ms per step of the last, longest stretch of them
  double tail_cycles = 0;    // the pressure solve's iterations per step in that stretch
};

// What a run's output streams write: every record of every stream (the start's, each
// scheduled one, the end's when none falls on it) uncompressed, and the records written
// after the last step (its own bytes stand for the last step's records).
struct OutputEstimate {
  double bytes = 0;
  double last_record_bytes = 0;
  bool compressed = false;  // some stream compresses: it writes fewer bytes than counted
};
OutputEstimate estimate_output(const Case& c, const StepEstimate& steps);

// The run's wall time: its set-up, the steps timed and the rest at the last stretch's rate,
// or the output's bytes at the disk's rate when that is longer (the records are written while
// the steps go on), and the last records after the steps. disk_rate 0: output left out.
double estimate_wall_seconds(const TrialTiming& t, double steps, const OutputEstimate& output, double disk_rate);

// Runs the case from rest on the backend, without output files or checkpoints, for about
// `budget_seconds` of steps (not more) or `steps_to_end` steps, whichever comes first, timing
// its set-up and its steps in stretches of 1, 2, 4, 8, ... steps (one wait each on a GPU, so that the
// host still queues ahead within a stretch). The first steps cost what they cost in the run
// (an iterative solve from a zero guess, graph captures), and the last stretch gives the rate
// of the steps after. Collective under several ranks (every rank times the same stretches,
// the slowest rank's time deciding when to stop). Allocates the run; the caller has checked
// that it fits.
TrialTiming time_trial_steps(const Case& c, const Backend& backend, double steps_to_end, double budget_seconds);

}  // namespace bouss
