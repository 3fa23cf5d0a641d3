// Shared pieces of the run and bench commands: logging set-up and the run summaries.
#pragma once

#include <string>

#include "grid/backend.hpp"
#include "io/case.hpp"
#include "solver/simulation.hpp"

namespace bouss {

void configure_logging();
void log_case_summary(const Case& c, const Backend& backend);
void log_solver_summary(const Simulation& sim);
// Fraction of the run done, by steps or by time, whichever ends it first.
double progress_fraction(const Simulation& sim);
std::string json_escape(const std::string& s);

}  // namespace bouss
