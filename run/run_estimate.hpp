// What a run of a case will cost, before it runs (bouss check's `runs:` line): its steps to
// the end, from the case's limits on dt and a velocity scale for its developed flow, and
// its wall time on a backend, from a few steps of the case timed from rest.
#pragma once

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
  double ms_per_step = 0;  // the median of the timed steps
  int steps = 0;           // how many were timed
};

// Times steps of the case from rest on the backend, without output or checkpoints, after
// three untimed ones (first touches, graph captures): about `budget_seconds` of them by the
// second step's time, at least 3 and at most 20, the same count on every rank (collective
// under several ranks). Allocates the run; the caller has checked that it fits.
TrialTiming time_trial_steps(const Case& c, const Backend& backend, double budget_seconds);

}  // namespace bouss
