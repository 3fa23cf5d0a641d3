// Shared pieces of the run and bench commands: logging set-up and the run summaries.
#pragma once

#include <string>

#include "grid/backend.hpp"
#include "io/case.hpp"
#include "solver/simulation.hpp"

namespace bouss {

// Log lines as "[HH:MM:SS] text", on stdout, or on stderr where stdout carries JSON.
void configure_logging(bool to_stderr = false);
void log_case_summary(const Case& c, const Backend& backend);
// "multigrid V(2,2) to 1e-08, 8 levels: 256x256x128, ..., 2x2x1 (host)"
std::string solver_summary(const Case& c, const Backend& backend);
void log_solver_summary(const Simulation& sim);
std::string json_escape(const std::string& s);

}  // namespace bouss
